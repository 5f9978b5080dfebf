// Assemble the playground's one page (docs/web.md):
//
//   node web/build.mjs ENGINE.js KERNEL-TREE OUT.html
//
// ENGINE.js is emscripten's output (the WebAssembly inside it, the
// model's files in its data); KERNEL-TREE the unpacked kernel files
// (build/kernel-model: tools/memory-model/litmus-tests and
// Documentation/litmus-tests); the one-time-init tests are read from the
// patch files of kernel/patches/*/, which add them.  web/index.html gets
// web/style.css, the tests, the engine and web/app.js in its /*@NAME@*/
// slots.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { litmusFiles } from './litmus-files.mjs';

const [engineFile, tree, outFile] = process.argv.slice(2);
if (!outFile) {
	console.error('usage: node web/build.mjs ENGINE.js KERNEL-TREE OUT.html');
	process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.dirname(here);
const read = (f) => fs.readFileSync(f, 'utf8');

// The files a patch creates (--- /dev/null), by path: their text is the
// hunk's "+" lines.
function newFilesOfPatch(text) {
	const files = {};
	const lines = text.split('\n');
	for (let i = 0; i < lines.length; i++) {
		if (lines[i] !== '--- /dev/null' || !lines[i + 1].startsWith('+++ b/'))
			continue;
		const name = lines[i + 1].slice(6);
		const m = /^@@ -0,0 \+1(?:,(\d+))? @@/.exec(lines[i + 2] || '');
		if (!m)
			continue;
		let count = m[1] === undefined ? 1 : +m[1];
		const body = [];
		for (i += 3; count > 0 && i < lines.length; i++) {
			if (lines[i].startsWith('\\'))
				continue;	// "\ No newline at end of file"
			body.push(lines[i].slice(1));
			count--;
		}
		files[name] = body.join('\n') + '\n';
		i--;
	}
	return files;
}

const groups = [];
const corpus = [
	['tools/memory-model/litmus-tests', 'The kernel\'s tests: tools/memory-model/litmus-tests'],
	['Documentation/litmus-tests', 'The kernel\'s tests: Documentation/litmus-tests'],
];
for (const [dir, label] of corpus) {
	const root = path.join(tree, dir);
	const tests = litmusFiles(root).map((f) => ({
		name: path.basename(f),
		path: path.join(dir, path.relative(root, f)),
		text: read(f),
	}));
	if (!tests.length) {
		console.error(`web/build.mjs: no tests in ${root} (run scripts/setup.sh checker)`);
		process.exit(1);
	}
	groups.push({ label, tests });
}

const patchDir = path.join(top, 'kernel', 'patches');
const oneTime = [];
for (const series of fs.existsSync(patchDir) ? fs.readdirSync(patchDir).sort() : []) {
	const dir = path.join(patchDir, series);
	if (!fs.statSync(dir).isDirectory())
		continue;
	for (const p of fs.readdirSync(dir).filter((f) => f.endsWith('.patch')).sort()) {
		const files = newFilesOfPatch(read(path.join(dir, p)));
		for (const [name, text] of Object.entries(files))
			if (/(^|\/)OneTimeInit\+[^/]*\.litmus$/.test(name))
				oneTime.push({ name: path.basename(name), path: name, text,
					       from: `kernel/patches/${series}/${p}` });
	}
}
oneTime.sort((a, b) => a.name.localeCompare(b.name));
if (oneTime.length)
	groups.push({ label: 'One-time init (the project\'s kernel patch series)', tests: oneTime });

// Text that must not end the <script> element it sits in.
const scriptSafe = (s) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
const jsonSafe = (v) => JSON.stringify(v).replace(/</g, '\\u003c');

let page = read(path.join(here, 'index.html'));
const slots = {
	STYLE: read(path.join(here, 'style.css')),
	TESTS: jsonSafe(groups),
	ENGINE: scriptSafe(read(engineFile)),
	APP: scriptSafe(read(path.join(here, 'app.js'))),
};
for (const [name, text] of Object.entries(slots)) {
	const slot = `/*@${name}@*/`;
	if (!page.includes(slot)) {
		console.error(`web/build.mjs: web/index.html has no ${slot}`);
		process.exit(1);
	}
	page = page.replace(slot, () => text);
}
fs.mkdirSync(path.dirname(outFile), { recursive: true });
fs.writeFileSync(outFile + '.tmp', page);
fs.renameSync(outFile + '.tmp', outFile);
const ntests = groups.reduce((n, g) => n + g.tests.length, 0);
console.log(`${outFile}: ${page.length} bytes, ${ntests} tests (${oneTime.length} one-time-init)`);
