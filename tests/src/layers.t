#!/usr/bin/env python3
# The layers of src/ (docs/hacking.md): a folder per layer, lowest first.
# A file may include the headers of its own folder and the door of a
# lower layer (FOLDER/FOLDER.h; the api layer's door is the public
# include/lkmm.h), nothing else; and no two files depend on each other
# in a circle, a file depending on another when it includes its header
# or calls a function only that file defines (read from the built
# objects with nm).  Prints TAP.
import collections
import glob
import os
import re
import subprocess
import sys

LAYERS = ['base', 'litmus', 'exec', 'model', 'search', 'report', 'explain', 'api',
          'kernel-run', ['cli', 'web'], 'code']
RANK = {}
for i, layer in enumerate(LAYERS):
    for name in (layer if isinstance(layer, list) else [layer]):
        RANK[name] = i
DOORS = {name: name + '/' + name + '.h' for name in RANK}
PUBLIC = 'lkmm.h'

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)
results = []


def check(ok, name, why=()):
    results.append((ok, name, list(why)))


folders = sorted(d for d in os.listdir('src') if os.path.isdir(os.path.join('src', d)))
unknown = [d for d in folders if d not in RANK]
check(not unknown, 'every folder of src/ is a known layer', unknown)
loose = sorted(glob.glob('src/*.[ch]'))
check(not loose, 'no source file outside a layer folder', loose)

bad = []
sources = sorted(glob.glob('src/*/*.[ch]'))
for path in sources:
    folder = path.split('/')[1]
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        if '/' not in inc:
            ok = os.path.exists(os.path.join('src', folder, inc)) or \
                (inc == PUBLIC and RANK[folder] >= RANK['api'])
        else:
            target = inc.split('/')[0]
            ok = target in RANK and inc == DOORS[target] and RANK[target] < RANK[folder]
        if not ok:
            bad.append('%s:%d: includes "%s"' % (path, n, inc))
check(not bad, 'each file includes its own folder and the doors of lower layers only', bad)

# Which object defines each global function or object, and who uses it.
objs = sorted(glob.glob('build/obj/*/*.o'))
check(len(objs) >= len([s for s in sources if s.endswith('.c')]),
      'the objects are built (make all)', ['%d objects' % len(objs)])
defines, uses = {}, collections.defaultdict(set)
for obj in objs:
    out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBR':
            defines.setdefault(parts[2], set()).add(obj)
        elif len(parts) == 2 and parts[0] == 'U':
            uses[obj].add(parts[1])


def source_of(obj):
    return 'src/' + obj[len('build/obj/'):-2] + '.c'


deps = collections.defaultdict(set)
for obj, symbols in uses.items():
    for sym in symbols:
        owners = defines.get(sym, set())
        if len(owners) == 1 and obj not in owners:
            deps[source_of(obj)].add((source_of(next(iter(owners))), sym))
for path in sources:
    if not path.endswith('.c'):
        continue
    for line in open(path, encoding='utf-8'):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m:
            inc = m.group(1)
            header = os.path.join('src', path.split('/')[1], inc) if '/' not in inc \
                else os.path.join('src', inc)
            twin = header[:-2] + '.c'
            if twin != path and os.path.exists(twin):
                deps[path].add((twin, 'includes ' + inc))


def circles(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


file_graph = {f: {t for t, _ in ts} for f, ts in deps.items()}
found = circles(file_graph)
why = []
for comp in found:
    for f in comp:
        why += ['%s -> %s (%s)' % (f, t, s) for t, s in sorted(deps[f]) if t in comp]
check(not found, 'no two source files depend on each other in a circle', why)

upward = []
for f, ts in sorted(deps.items()):
    for t, sym in sorted(ts):
        a, b = f.split('/')[1], t.split('/')[1]
        if a != b and RANK[b] >= RANK[a]:
            upward.append('%s -> %s (%s)' % (f, t, sym))
check(not upward, 'no file calls into its own or a higher layer elsewhere', upward)

# The programs on top (lkmm run, the command line, the playground, lkmm
# code) reach the checker through include/lkmm.h alone: besides it, they
# include base/base.h (strings, files, messages) and each other's doors,
# and call only the functions the public header declares.
PROGRAMS = {n for n in RANK if RANK[n] > RANK['api']}
public = set(re.findall(r'[ *](lkmm_[a-z_]+)\(', open('include/' + PUBLIC, encoding='utf-8').read()))
private = []
for path in sources:
    if path.split('/')[1] not in PROGRAMS:
        continue
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+/[^"]+)"', line)
        if m and m.group(1) != 'base/base.h' and m.group(1).split('/')[0] not in PROGRAMS:
            private.append('%s:%d: includes "%s"' % (path, n, m.group(1)))
for f, ts in sorted(deps.items()):
    if f.split('/')[1] not in PROGRAMS:
        continue
    for t, sym in sorted(ts):
        layer = t.split('/')[1]
        if layer in PROGRAMS or layer == 'base' or sym.startswith('includes '):
            continue
        if sym not in public:
            private.append('%s -> %s (%s)' % (f, t, sym))
check(not private, 'lkmm run, the command line, the playground and lkmm code use the '
      'checker through include/lkmm.h alone', private)

print('1..%d' % len(results))
for i, (ok, name, why) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, name))
    for line in why[:40]:
        print('#   ' + line)
