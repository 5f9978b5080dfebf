// The playground's page (docs/web.md): the editor, the test picker, the
// check on each edit, and what the checker says about the test.  The
// checker is src/web/playground.c built to WebAssembly (the script
// #engine-source), run in a Web Worker so that the page stays responsive
// during a long search; where no Worker can be made, in the page itself.
'use strict';
(function () {
	const $ = (id) => document.getElementById(id);
	const SUGGEST = 1;		// playground.c's PLAYGROUND_SUGGEST
	const DEBOUNCE_MS = 300;
	const groups = JSON.parse($('tests-data').textContent);
	const engineSource = $('engine-source').textContent;
	const editor = $('editor'), gutter = $('gutter'), picker = $('picker');
	const page = window.lkmmPlayground = {
		shownText: null,	// the text whose verdict is shown
		shown: null,		// the result shown (playground.c's JSON)
		firstVerdictMs: null,	// from navigation start to the first verdict
		openMs: null,		// the model's loading, in the engine
		engineMode: null,	// 'worker' or 'page'
	};

	/* ---- The text as a link: #t= and the base64url of its UTF-8 ---- */

	function toBase64url(text) {
		const bytes = new TextEncoder().encode(text);
		let bin = '';
		for (let i = 0; i < bytes.length; i += 0x8000)
			bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
		return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
	}

	function fromBase64url(s) {
		s = s.replace(/-/g, '+').replace(/_/g, '/');
		while (s.length % 4)
			s += '=';
		const bin = atob(s);
		const bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++)
			bytes[i] = bin.charCodeAt(i);
		return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	}

	function textOfFragment(hash) {
		const m = /^#t=([A-Za-z0-9_-]*)$/.exec(hash);
		if (!m)
			return null;
		try {
			return fromBase64url(m[1]);
		} catch (e) {
			return null;
		}
	}
	page.toBase64url = toBase64url;

	/* ---- A unified diff applied to a text ---- */

	// The text with diff's hunks applied; each hunk's old lines must be
	// found in the text, at the line its header says or near it.
	function applyUnifiedDiff(text, diff) {
		const lines = text.split('\n');
		const d = diff.split('\n');
		if (d.length && d[d.length - 1] === '')
			d.pop();
		let i = 0, delta = 0, from = 0, nhunks = 0;
		while (i < d.length && !d[i].startsWith('@@'))
			i++;
		while (i < d.length) {
			const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(d[i]);
			if (!m)
				throw new Error('not a hunk: ' + d[i]);
			const oldStart = +m[1], oldCount = m[2] === undefined ? 1 : +m[2];
			const newCount = m[4] === undefined ? 1 : +m[4];
			const oldLines = [], newLines = [];
			for (i++; i < d.length && (oldLines.length < oldCount || newLines.length < newCount); i++) {
				const l = d[i], kind = l === '' ? ' ' : l[0], body = l.slice(1);
				if (kind === '\\')
					continue;	// "\ No newline at end of file"
				if (kind === ' ' || kind === '-')
					oldLines.push(body);
				if (kind === ' ' || kind === '+')
					newLines.push(body);
				if (!' -+'.includes(kind))
					throw new Error('not a line of a hunk: ' + l);
			}
			if (oldLines.length !== oldCount || newLines.length !== newCount)
				throw new Error('a hunk is cut short');
			const want = (oldCount === 0 ? oldStart : oldStart - 1) + delta;
			const at = (pos) => pos >= from && pos + oldLines.length <= lines.length &&
				oldLines.every((l, k) => lines[pos + k] === l);
			let pos = -1;
			for (let off = 0; pos < 0 && off <= lines.length; off++) {
				if (at(want - off))
					pos = want - off;
				else if (at(want + off))
					pos = want + off;
			}
			if (pos < 0)
				throw new Error('the fix does not apply: the text around line ' + oldStart +
						' has changed');
			lines.splice(pos, oldLines.length, ...newLines);
			delta += newLines.length - oldLines.length + (pos - want);
			from = pos + newLines.length;
			nhunks++;
			while (i < d.length && !d[i].startsWith('@@'))
				i++;
		}
		if (!nhunks)
			throw new Error('the diff has no hunk');
		return lines.join('\n');
	}
	page.applyUnifiedDiff = applyUnifiedDiff;

	/* ---- The checker: in a worker, or in the page ---- */

	const WORKER_MAIN = `
let M = null;
const ready = createLkmm().then((m) => {
	M = m;
	const t0 = performance.now();
	const status = M.ccall('lkmm_playground_open', 'number', [], []);
	postMessage({ type: 'ready', status, ms: performance.now() - t0 });
}, (e) => postMessage({ type: 'ready', status: -1, error: String(e) }));
onmessage = (e) => ready.then(() => {
	const d = e.data, t0 = performance.now();
	let json = null, error = null;
	try {
		json = M.ccall('lkmm_playground_check', 'string', ['string', 'string', 'number'],
			       [d.name, d.text, d.flags]);
	} catch (err) {
		error = String(err && err.message || err);
	}
	postMessage({ type: 'result', id: d.id, json, error, ms: performance.now() - t0 });
});
`;

	// The engine in a Worker made from the page's own text (a blob: URL,
	// which a page opened from file:// may start too).
	function workerEngine() {
		const url = URL.createObjectURL(new Blob([engineSource, WORKER_MAIN],
							 { type: 'text/javascript' }));
		const engine = { worker: null, pending: new Map(), nextId: 1, ready: null };
		engine.start = () => {
			engine.worker = new Worker(url);
			engine.ready = new Promise((resolve, reject) => {
				engine.worker.onmessage = (e) => {
					const m = e.data;
					if (m.type === 'ready') {
						if (m.status === 0)
							resolve(m);
						else
							reject(new Error(m.error || 'the model did not load (status ' + m.status + ')'));
						return;
					}
					const p = engine.pending.get(m.id);
					engine.pending.delete(m.id);
					if (p && m.error)
						p.reject(new Error(m.error));
					else if (p)
						p.resolve({ result: JSON.parse(m.json), ms: m.ms });
				};
				engine.worker.onerror = (e) => {
					e.preventDefault();
					reject(new Error(e.message || 'the checker failed to start'));
				};
			});
			return engine.ready;
		};
		engine.busy = () => engine.pending.size > 0;
		engine.check = (name, text, flags) => new Promise((resolve, reject) => {
			const id = engine.nextId++;
			engine.pending.set(id, { resolve, reject });
			engine.worker.postMessage({ id, name, text, flags });
		});
		// Abandon what it is doing: a new worker, the model loaded afresh.
		engine.restart = () => {
			engine.worker.terminate();
			for (const p of engine.pending.values())
				p.reject(new Error('superseded'));
			engine.pending.clear();
			return engine.start();
		};
		return engine;
	}

	function pageEngine() {
		const engine = { M: null, queue: Promise.resolve(), n: 0 };
		engine.start = () => {
			const create = new Function(engineSource + '\nreturn createLkmm;')();
			engine.ready = create().then((M) => {
				engine.M = M;
				const t0 = performance.now();
				const status = M.ccall('lkmm_playground_open', 'number', [], []);
				if (status)
					throw new Error('the model did not load (status ' + status + ')');
				return { ms: performance.now() - t0 };
			});
			return engine.ready;
		};
		engine.busy = () => engine.n > 0;
		engine.check = (name, text, flags) => {
			engine.n++;
			const run = engine.queue.then(() => new Promise((resolve) => setTimeout(resolve, 0)))
				.then(() => {
					const t0 = performance.now();
					const json = engine.M.ccall('lkmm_playground_check', 'string',
						['string', 'string', 'number'], [name, text, flags]);
					return { result: JSON.parse(json), ms: performance.now() - t0 };
				})
				.finally(() => engine.n--);
			engine.queue = run.catch(() => {});
			return run;
		};
		engine.restart = () => engine.ready;
		return engine;
	}

	// ?engine=page runs the checker in the page (as where no Worker can be made).
	const inPage = new URLSearchParams(location.search).get('engine') === 'page';
	let engine;
	try {
		if (inPage)
			throw new Error('asked to run in the page');
		engine = workerEngine();
		engine.start();
		page.engineMode = 'worker';
	} catch (e) {
		engine = pageEngine();
		engine.start();
		page.engineMode = 'page';
	}
	page.engine = engine;
	// A worker that cannot run (a browser's policy on blob: workers): the page.
	if (page.engineMode === 'worker') {
		engine.ready.catch(() => {
			engine.worker.terminate();
			engine = page.engine = pageEngine();
			page.engineMode = 'page';
			engine.start();
			checkNow();
		});
	}

	/* ---- The editor: line numbers, the error's line ---- */

	let shownLines = 0, errorLine = 0;

	function lineHeight() {
		return parseFloat(getComputedStyle(editor).lineHeight) || 18;
	}

	function renderGutter() {
		const n = editor.value.split('\n').length;
		if (n === shownLines && !gutter.dataset.dirty)
			return;
		shownLines = n;
		delete gutter.dataset.dirty;
		gutter.textContent = '';
		for (let i = 1; i <= n; i++) {
			const span = document.createElement('span');
			span.textContent = String(i);
			if (i === errorLine)
				span.className = 'bad';
			gutter.append(span, '\n');
		}
		gutter.append('\n\n');	// room for the text's horizontal scroll bar
		syncScroll();
	}

	function syncScroll() {
		gutter.scrollTop = editor.scrollTop;
		const box = $('error-line');
		if (errorLine) {
			const pad = parseFloat(getComputedStyle(editor).paddingTop) || 0;
			box.style.top = (pad + (errorLine - 1) * lineHeight() - editor.scrollTop) + 'px';
			box.hidden = false;
		} else {
			box.hidden = true;
		}
	}

	function setErrorLine(line) {
		if (line === errorLine)
			return;
		errorLine = line;
		gutter.dataset.dirty = '1';
		renderGutter();
		syncScroll();
	}

	function goToLine(line, col) {
		const lines = editor.value.split('\n');
		let pos = 0;
		for (let i = 0; i < line - 1 && i < lines.length; i++)
			pos += lines[i].length + 1;
		pos += Math.max(0, Math.min((col || 1) - 1, (lines[line - 1] || '').length));
		editor.focus();
		editor.setSelectionRange(pos, pos);
		const target = (line - 1) * lineHeight();
		if (target < editor.scrollTop || target > editor.scrollTop + editor.clientHeight - 2 * lineHeight())
			editor.scrollTop = Math.max(0, target - editor.clientHeight / 3);
		syncScroll();
	}

	// Replace the editor's text as an edit of the user's (undo keeps it).
	function replaceText(text) {
		editor.focus();
		editor.select();
		let done = false;
		try {
			done = document.execCommand('insertText', false, text);
		} catch (e) {
			done = false;
		}
		if (!done || editor.value !== text) {
			editor.value = text;
			editor.dispatchEvent(new Event('input'));
		}
		editor.setSelectionRange(0, 0);
	}

	/* ---- The test picker ---- */

	const tests = [];
	{
		const own = document.createElement('option');
		own.value = '';
		own.textContent = 'Your own text';
		picker.append(own);
		groups.forEach((g) => {
			const og = document.createElement('optgroup');
			og.label = g.label;
			for (const t of g.tests) {
				const o = document.createElement('option');
				o.value = String(tests.length);
				o.textContent = t.name.replace(/\.litmus$/, '');
				o.title = t.path;
				tests.push(t);
				og.append(o);
			}
			picker.append(og);
		});
	}
	page.tests = tests;

	function syncPicker() {
		const i = picker.value === '' ? -1 : +picker.value;
		if (i >= 0 && tests[i].text === editor.value)
			return;
		const same = tests.findIndex((t) => t.text === editor.value);
		picker.value = same >= 0 ? String(same) : '';
	}

	/* ---- Checking ---- */

	let seq = 0, timer = null;

	function testName(text) {
		const m = /^\s*C\s+(\S+)/.exec(text);
		return (m ? m[1] : 'test') + '.litmus';
	}

	function setPhase(phase) {
		document.body.dataset.phase = phase;
	}

	function status(text) {
		$('status').textContent = text;
	}

	function schedule(delay) {
		clearTimeout(timer);
		timer = setTimeout(checkNow, delay);
	}

	async function checkNow() {
		clearTimeout(timer);
		const text = editor.value, name = testName(text), id = ++seq;
		$('link').href = '#t=' + toBase64url(text);
		setPhase('checking');
		status('Checking…');
		try {
			await engine.ready;
		} catch (e) {
			setPhase('failed');
			status('The checker could not start: ' + e.message);
			return;
		}
		if (id !== seq)
			return;
		if (engine.busy())
			await engine.restart();	// a long search of an older text
		if (id !== seq)
			return;
		let r;
		try {
			r = await engine.check(name, text, 0);
		} catch (e) {
			if (id === seq) {
				setPhase('failed');
				status('The checker failed: ' + e.message);
				engine.restart();
			}
			return;
		}
		if (id !== seq)
			return;
		show(text, r.result, r.ms, false);
		if (r.result.status !== 0)
			return;
		try {
			r = await engine.check(name, text, SUGGEST);
		} catch (e) {
			if (id === seq) {
				$('fixes').textContent = 'The search for fixes failed: ' + e.message;
				setPhase('done');
				engine.restart();
			}
			return;
		}
		if (id !== seq)
			return;
		show(text, r.result, r.ms, true);
	}
	page.checkNow = checkNow;

	function diffElement(diff) {
		const pre = document.createElement('pre');
		pre.className = 'diff';
		for (const line of diff.replace(/\n$/, '').split('\n')) {
			const span = document.createElement('span');
			span.textContent = line;
			if (line.startsWith('@@'))
				span.className = 'hunk';
			else if (line.startsWith('+') && !line.startsWith('+++'))
				span.className = 'add';
			else if (line.startsWith('-') && !line.startsWith('---'))
				span.className = 'del';
			pre.append(span, '\n');
		}
		return pre;
	}

	function showFixes(r, withSuggestions) {
		const box = $('fixes');
		box.textContent = '';
		if (!withSuggestions) {
			box.textContent = 'Searching for fixes…';
			$('suggestion').textContent = '';
			return;
		}
		$('suggestion').textContent = r.suggestion;
		if (!r.fixes.length) {
			const p = document.createElement('pre');
			p.textContent = r.suggestion.replace(/^Suggestion:\n/, '');
			box.append(p);
			return;
		}
		r.fixes.forEach((fix, n) => {
			const div = document.createElement('div');
			div.className = 'fix';
			const head = document.createElement('div');
			head.className = 'fix-head';
			const title = document.createElement('span');
			title.className = 'fix-title';
			title.textContent = fix.title.replace(/:$/, '');
			const apply = document.createElement('button');
			apply.type = 'button';
			apply.className = 'apply';
			apply.textContent = 'Apply';
			apply.setAttribute('aria-label', 'Apply fix ' + (n + 1) + ': ' + title.textContent);
			apply.addEventListener('click', () => {
				try {
					replaceText(applyUnifiedDiff(editor.value, fix.diff));
					status('Applied fix ' + (n + 1) + '; checking…');
					checkNow();
				} catch (e) {
					status(e.message);
				}
			});
			head.append(title, apply);
			div.append(head, diffElement(fix.diff));
			box.append(div);
		});
		// A dearer alternative: its numbered line and the changed lines quoted
		// under it ("    P1 line 24: `smp_rmb();` then ..."), no diff; the same
		// fix with a fence elsewhere ("    or the same with ... instead:") too.
		const lines = r.suggestion.split('\n'), rest = [];
		const quoted = /^ {4}(?:P\d+ line \d+(?: and P\d+ line \d+)*: |or the same with .* instead:$)/;
		lines.forEach((l, i) => {
			if (/^ {2}\d+\. \(cost \d+\b.*:$/.test(l) && quoted.test(lines[i + 1] || ''))
				for (let j = i; j === i || quoted.test(lines[j] || ''); j++)
					rest.push(lines[j]);
		});
		if (rest.length) {
			const p = document.createElement('pre');
			p.textContent = 'Dearer alternatives:\n' + rest.join('\n');
			box.append(p);
		}
	}

	function showGraph(r) {
		const box = $('graph');
		box.textContent = '';
		if (r.svg) {
			box.innerHTML = r.svg.slice(Math.max(0, r.svg.indexOf('<svg')));
			return;
		}
		if (!r.dot)
			return;
		const note = document.createElement('p');
		note.textContent = 'The graph as Graphviz dot text (render it with dot -Tsvg):';
		const pre = document.createElement('pre');
		pre.className = 'dot';
		pre.textContent = r.dot;
		box.append(note, pre);
	}

	function show(text, r, ms, withSuggestions) {
		page.shownText = text;
		page.shown = r;
		const err = $('error');
		if (r.status !== 0) {
			const e = r.error || { line: 0, col: 0, message: r.messages };
			err.textContent = '';
			err.dataset.line = String(e.line);
			err.dataset.col = String(e.col);
			const where = e.line ? 'line ' + e.line + ', col ' + e.col + ': ' : '';
			err.append(where + e.message);
			if (e.line) {
				const go = document.createElement('button');
				go.type = 'button';
				go.textContent = 'Go to line ' + e.line;
				go.addEventListener('click', () => goToLine(e.line, e.col));
				err.append(go);
			}
			err.hidden = false;
			$('messages').hidden = true;
			setErrorLine(e.line || 0);
			$('observation').textContent = '—';
			$('badge').textContent = 'error';
			delete document.body.dataset.observation;
			for (const id of ['herd', 'explanation', 'fixes', 'suggestion', 'graph'])
				$(id).textContent = '';
			status((r.status === 3 ? 'No verdict: a limit was reached: ' : 'The test has an error: ') +
			       where + e.message);
			setPhase('error');
			return;
		}
		err.hidden = true;
		err.textContent = '';
		$('messages').textContent = r.messages;	// warnings, if any
		$('messages').hidden = !r.messages;
		setErrorLine(0);
		$('observation').textContent = r.observation;
		$('badge').textContent = r.observation;
		document.body.dataset.observation = r.observation;
		$('herd').textContent = r.herd;
		$('explanation').textContent = r.explanation.replace(/^Explanation:\n/, '');
		showFixes(r, withSuggestions);
		showGraph(r);
		status(r.observation + ' (Positive: ' + r.positive + ' Negative: ' + r.negative + '): ' +
		       (withSuggestions ? 'checked, fixes searched, in ' : 'checked in ') +
		       Math.round(ms) + ' ms' + (withSuggestions ? '.' : '; searching for fixes…'));
		if (page.firstVerdictMs === null)
			page.firstVerdictMs = performance.now();
		setPhase(withSuggestions ? 'done' : 'verdict');
	}

	/* ---- Events ---- */

	let escaped = false;
	editor.addEventListener('keydown', (e) => {
		if (e.key === 'Escape') {
			escaped = true;
			return;
		}
		if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey && !escaped) {
			e.preventDefault();
			if (!document.execCommand('insertText', false, '\t')) {
				editor.setRangeText('\t', editor.selectionStart, editor.selectionEnd, 'end');
				editor.dispatchEvent(new Event('input'));
			}
		}
		escaped = false;
	});
	editor.addEventListener('input', () => {
		renderGutter();
		syncPicker();
		schedule(DEBOUNCE_MS);
	});
	editor.addEventListener('scroll', syncScroll);
	document.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
			e.preventDefault();
			checkNow();
		}
	});
	$('check-now').addEventListener('click', checkNow);
	picker.addEventListener('change', () => {
		if (picker.value === '')
			return;
		editor.value = tests[+picker.value].text;
		editor.scrollTop = 0;
		renderGutter();
		checkNow();
	});
	$('copy-link').addEventListener('click', async () => {
		$('link').href = '#t=' + toBase64url(editor.value);
		const url = $('link').href;
		try {
			await navigator.clipboard.writeText(url);
			status('Link copied.');
		} catch (e) {
			status('Copy this link: ' + url);
		}
	});
	function loadFragment() {
		const text = textOfFragment(location.hash);
		if (text === null || text === editor.value)
			return false;
		editor.value = text;
		renderGutter();
		syncPicker();
		checkNow();
		return true;
	}
	window.addEventListener('hashchange', loadFragment);
	window.addEventListener('resize', syncScroll);

	if (!loadFragment()) {
		const first = tests.findIndex((t) => t.name === 'MP+poonceonces.litmus');
		picker.value = String(first >= 0 ? first : 0);
		editor.value = tests[+picker.value].text;
		renderGutter();
		checkNow();
	}
	engine.ready.then((m) => {
		page.openMs = m.ms;
	}, () => {});
})();
