// tests/web/web.t's body: the playground in headless Chromium (see there).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage } from './cdp.mjs';
import { litmusFiles } from '../../web/litmus-files.mjs';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pageFile = path.join(top, 'build/web/index.html');
const pageUrl = pathToFileURL(pageFile).href;
const lkmm = path.join(top, 'bin/lkmm');
const tree = path.join(top, 'build/kernel-model');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lkmm-web-t-'));

let n = 0, failed = 0;
const ok = (cond, name, diag = []) => {
	n++;
	console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
	if (!cond) {
		failed++;
		for (const line of [].concat(diag).join('\n').split('\n').slice(0, 30))
			console.log('#   ' + line);
	}
	return cond;
};
const note = (text) => console.log('# ' + text);

// bin/lkmm's verdict: observation, "Positive: N Negative: M", wall time.
function native(file, extra = []) {
	const t0 = process.hrtime.bigint();
	const r = spawnSync(lkmm, ['check', ...extra, file], { encoding: 'utf8' });
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	const obs = /^Observation \S+ (\w+)/m.exec(r.stdout);
	const pn = /^Positive: \d+ Negative: \d+$/m.exec(r.stdout);
	return { status: r.status, obs: obs && obs[1], pn: pn && pn[0], ms, stderr: r.stderr };
}

const corpus = [...litmusFiles(path.join(tree, 'tools/memory-model/litmus-tests')),
		...litmusFiles(path.join(tree, 'Documentation/litmus-tests'))];

const SHOWN = `(() => { const p = window.lkmmPlayground, e = document.getElementById('editor');
	return p && p.shownText === e.value &&
		['verdict', 'done', 'error'].includes(document.body.dataset.phase); })()`;
const DONE = `(() => { const p = window.lkmmPlayground, e = document.getElementById('editor');
	return p && p.shownText === e.value && ['done', 'error'].includes(document.body.dataset.phase); })()`;
const STATE = `(() => {
	const $ = (id) => document.getElementById(id);
	const herd = $('herd').textContent, pn = /^Positive: \\d+ Negative: \\d+$/m.exec(herd);
	const graph = $('graph');
	return { phase: document.body.dataset.phase, obs: $('observation').textContent,
		 pn: pn && pn[0], herdObs: (/^Observation \\S+ (\\w+)/m.exec(herd) || [])[1],
		 explanation: $('explanation').textContent.length,
		 svg: !!graph.querySelector('svg'), graph: graph.textContent.length,
		 dot: /^digraph /.test((graph.querySelector('pre.dot') || {}).textContent || ''),
		 error: $('error').hidden ? null : $('error').textContent,
		 errorLine: +($('error').dataset.line || 0), errorCol: +($('error').dataset.col || 0),
		 gutterBad: (document.querySelector('#gutter .bad') || {}).textContent || null,
		 lineShown: !$('error-line').hidden,
		 fixes: document.querySelectorAll('#fixes .fix').length,
		 text: $('editor').value, link: $('link').href, mode: window.lkmmPlayground.engineMode };
})()`;

// Put text in the editor as typing would.
const typeText = (text) => `(() => { const e = document.getElementById('editor');
	e.value = ${JSON.stringify(text)}; e.dispatchEvent(new Event('input')); return true; })()`;
// Choose a test of the picker by file name.
const pick = (name) => `(() => { const p = document.getElementById('picker');
	const i = window.lkmmPlayground.tests.findIndex((t) => t.name === ${JSON.stringify(name)});
	if (i < 0) return false;
	p.value = String(i); p.dispatchEvent(new Event('change')); return true; })()`;

let chrome;
let server;
try {
	chrome = await launch();
	const page = await openPage(chrome.browser);
	await page.viewport(1280, 1000);

	// Load to first verdict.
	let t0 = Date.now();
	await page.navigate(pageUrl);
	const loaded = await page.waitFor(SHOWN, 60000);
	const loadMs = Date.now() - t0;
	const first = await page.eval(STATE);
	ok(loaded && first.obs === 'Sometimes' && first.mode === 'worker',
	   'the page opened from file:// checks its first test (MP+poonceonces: Sometimes) in a Web Worker',
	   JSON.stringify({ loaded, obs: first.obs, mode: first.mode, errors: page.errors }));
	const inPage = await page.eval(`({ first: window.lkmmPlayground.firstVerdictMs,
		open: window.lkmmPlayground.openMs })`);
	note(`page load to first verdict: ${loadMs} ms (navigation to verdict shown, in the page: ` +
	     `${Math.round(inPage.first)} ms; the model's loading in WebAssembly: ${Math.round(inPage.open)} ms)`);

	// Every test of the kernel's corpus, and the page's one-time-init tests.
	const names = await page.eval(`window.lkmmPlayground.tests.map((t) => [t.name, t.path])`);
	const extra = await page.eval(`window.lkmmPlayground.tests.filter((t) =>
		/^OneTimeInit\\+/.test(t.name)).map((t) => [t.name, t.text])`);
	const files = corpus.map((f) => [path.basename(f), f]);
	for (const [name, text] of extra) {
		const f = path.join(work, name);
		fs.writeFileSync(f, text);
		files.push([name, f]);
	}
	ok(corpus.length === 47 && names.length === 47 + extra.length && extra.length >= 7,
	   `the picker has the ${corpus.length} tests of the kernel's corpus and ${extra.length} one-time-init tests`,
	   `picker: ${names.length}`);
	const bad = [], missing = [], timings = [];
	for (const [name, file] of files) {
		const want = native(file);
		if (!(await page.eval(pick(name)))) {
			bad.push(`${name}: not in the picker`);
			continue;
		}
		if (!(await page.waitFor(SHOWN, 60000))) {
			bad.push(`${name}: no verdict in the page`);
			continue;
		}
		const got = await page.eval(STATE);
		if (got.obs !== want.obs || got.herdObs !== want.obs || got.pn !== want.pn)
			bad.push(`${name}: page ${got.obs} "${got.pn}", bin/lkmm ${want.obs} "${want.pn}"`);
		if (!got.explanation || !(got.svg || got.dot))
			missing.push(`${name}: explanation ${got.explanation} chars, svg ${got.svg}, dot ${got.dot}`);
		timings.push({ name, file, nativeMs: want.ms });
	}
	ok(!bad.length && timings.length === files.length,
	   `each of the ${files.length} tests: the page's verdict (observation, Positive/Negative) is bin/lkmm check's`, bad);
	ok(!missing.length, 'each test has an explanation and a graph', missing);

	// A syntax error: at the line and column bin/lkmm names.
	const mp = fs.readFileSync(path.join(tree, 'tools/memory-model/litmus-tests/MP+poonceonces.litmus'), 'utf8');
	const broken = mp.replace('WRITE_ONCE(*flag, 1);', 'WRITE_ONCE(*flag, 1)');
	fs.writeFileSync(path.join(work, 'broken.litmus'), broken);
	const nat = native(path.join(work, 'broken.litmus'));
	const where = /:(\d+):(\d+): error: (.*)/.exec(nat.stderr) || [];
	await page.eval(typeText(broken));
	await page.waitFor(SHOWN, 30000);
	const err = await page.eval(STATE);
	ok(err.phase === 'error' && where[1] && err.errorLine === +where[1] && err.errorCol === +where[2] &&
	   err.error.includes(`line ${where[1]}, col ${where[2]}: ${where[3]}`) &&
	   err.gutterBad === where[1] && err.lineShown,
	   `a syntax error is shown at its line (${where[1]}:${where[2]}: ${where[3]}), the line marked`,
	   JSON.stringify({ page: [err.phase, err.errorLine, err.errorCol, err.error, err.gutterBad], native: where.slice(1) }));

	// Ctrl+Enter checks at once (no edit event).
	await page.eval(`(() => { document.getElementById('editor').value = ${JSON.stringify(mp)};
		document.getElementById('editor').dispatchEvent(new KeyboardEvent('keydown',
			{ key: 'Enter', ctrlKey: true, bubbles: true })); return true; })()`);
	const ctrlEnter = await page.waitFor(SHOWN, 30000);
	ok(ctrlEnter && (await page.eval(STATE)).obs === 'Sometimes', 'Ctrl+Enter checks the text now');

	// The first suggestion of MP+poonceonces, applied: Never.
	await page.eval(pick('MP+poonceonces.litmus'));
	const searched = await page.waitFor(DONE, 60000);
	const before = await page.eval(STATE);
	// The page as it shows the test, its verdict, explanation, fixes and graph.
	const { cssContentSize } = await page.send('Page.getLayoutMetrics');
	await page.screenshot(path.join(top, 'build/web/screenshot.png'),
			      { x: 0, y: 0, width: 1280, height: Math.ceil(cssContentSize.height), scale: 1 });
	await page.eval(`document.querySelector('#fixes .fix button.apply').click(), true`);
	await page.waitFor(`document.getElementById('editor').value !== ${JSON.stringify(mp)}`, 5000);
	await page.waitFor(SHOWN, 30000);
	const after = await page.eval(STATE);
	ok(searched && before.obs === 'Sometimes' && before.fixes > 0 && after.obs === 'Never' &&
	   after.text.includes('smp_store_release') && after.text !== mp,
	   'applying the first suggestion to MP+poonceonces makes it Never',
	   JSON.stringify({ searched, before: [before.obs, before.fixes], after: after.obs }));
	await page.viewport(390, 844, true);
	await page.screenshot(path.join(top, 'build/web/screenshot-phone.png'));
	const phone = await page.eval(`document.documentElement.scrollWidth <= window.innerWidth + 1`);
	ok(phone, 'on a phone-sized screen (390 px) the page does not scroll sideways');
	await page.viewport(1280, 1000);

	// The keyboard: Tab indents in the editor, Esc then Tab leaves it;
	// every field has a label.
	const key = async (k, code, vk) => {
		await page.send('Input.dispatchKeyEvent', { type: 'keyDown', key: k, code, windowsVirtualKeyCode: vk });
		await page.send('Input.dispatchKeyEvent', { type: 'keyUp', key: k, code, windowsVirtualKeyCode: vk });
	};
	await page.eval(`(() => { const e = document.getElementById('editor');
		e.focus(); e.setSelectionRange(0, 0); return true; })()`);
	await key('Tab', 'Tab', 9);
	const tabbed = await page.eval(`document.activeElement.id === 'editor' &&
		document.getElementById('editor').value.startsWith('\\t')`);
	await key('Escape', 'Escape', 27);
	await key('Tab', 'Tab', 9);
	const left = await page.eval(`document.activeElement.id !== 'editor' &&
		!document.getElementById('editor').value.startsWith('\\t\\t')`);
	const labelled = await page.eval(`[...document.querySelectorAll('select, textarea')].every((e) =>
		e.labels.length > 0) && [...document.querySelectorAll('button')].every((b) => b.textContent.trim())`);
	ok(tabbed && left && labelled, 'Tab indents in the editor, Esc then Tab moves on; every field is labelled',
	   JSON.stringify({ tabbed, left, labelled }));

	// An edit during a long search of fixes (DCL-broken's takes seconds):
	// the search is abandoned and the new text's verdict comes at once.
	await page.eval(pick('DCL-broken.litmus'));
	await page.waitFor(SHOWN, 30000);
	const searching = await page.eval(`document.body.dataset.phase === 'verdict'`);
	t0 = Date.now();
	await page.eval(pick('MP+poonceonces.litmus'));
	const switched = await page.waitFor(SHOWN, 30000);
	const switchMs = Date.now() - t0;
	const sw = await page.eval(STATE);
	ok(switched && sw.obs === 'Sometimes' && searching,
	   'a new test during a long search of fixes gets its verdict (the search abandoned)',
	   JSON.stringify({ searching, switched, obs: sw.obs }));
	note(`verdict of a new test while the old one's fixes were searched: ${switchMs} ms ` +
	     `(a new worker, the model loaded again)`);

	// The link: the text in the fragment, back in a fresh page.
	const own = '// A test of my own: é ✓\n' + mp.replace('C MP+poonceonces', 'C MP+mine');
	await page.eval(typeText(own));
	await page.waitFor(SHOWN, 30000);
	const link = (await page.eval(STATE)).link;
	await page.navigate('about:blank');
	await page.navigate(link);
	await page.waitFor(SHOWN, 60000);
	const back = await page.eval(STATE);
	ok(link.includes('#t=') && back.text === own && back.obs === 'Sometimes',
	   'the link carries the text in its fragment and a fresh page loads and checks it',
	   JSON.stringify({ link: link.slice(0, 80), same: back.text === own, obs: back.obs }));

	// Served by a static host (here Node's http), the same page works.
	server = http.createServer((req, res) => {
		const f = path.join(top, 'build/web', path.normalize(decodeURIComponent(req.url.split('?')[0])));
		if (!f.startsWith(path.join(top, 'build/web')) || !fs.existsSync(f) || fs.statSync(f).isDirectory()) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { 'content-type': f.endsWith('.html') ? 'text/html' : 'application/octet-stream' });
		res.end(fs.readFileSync(f));
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	await page.navigate(`http://127.0.0.1:${server.address().port}/index.html`);
	const served = await page.waitFor(SHOWN, 60000);
	ok(served && (await page.eval(STATE)).obs === 'Sometimes', 'served over http, the page checks its first test');

	// The page's diff applier agrees with patch(1), and each fix forbids
	// the outcome by bin/lkmm too.
	const fixBad = [];
	let nfixes = 0;
	for (const name of ['MP+poonceonces', 'SB+poonceonces', 'LB+poonceonces', 'ISA2+poonceonces',
			    'WRC+poonceonces+Once', 'R+poonceonces']) {
		const file = path.join(tree, 'tools/memory-model/litmus-tests', name + '.litmus');
		const text = fs.readFileSync(file, 'utf8');
		const fixes = await page.eval(`window.lkmmPlayground.engine.check(${JSON.stringify(name + '.litmus')},
			${JSON.stringify(text)}, 1).then((r) => r.result.fixes)`);
		if (!fixes.length)
			fixBad.push(`${name}: no fix`);
		for (const [k, fix] of fixes.entries()) {
			nfixes++;
			const applied = await page.eval(`window.lkmmPlayground.applyUnifiedDiff(
				${JSON.stringify(text)}, ${JSON.stringify(fix.diff)})`);
			const orig = path.join(work, name + '.litmus'), out = path.join(work, `${name}.fix${k}.litmus`);
			fs.writeFileSync(orig, text);
			const p = spawnSync('patch', ['-s', '-o', out, orig], { input: fix.diff, encoding: 'utf8' });
			if (p.status !== 0 || fs.readFileSync(out, 'utf8') !== applied)
				fixBad.push(`${name} fix ${k + 1}: the page's text is not patch's (${p.stderr || p.stdout})`);
			else if (native(out).obs !== 'Never')
				fixBad.push(`${name} fix ${k + 1}: bin/lkmm says ${native(out).obs}`);
		}
	}
	ok(!fixBad.length && nfixes > 0, `each of ${nfixes} fixes of six tests: the page applies it as patch does, and it makes the test Never`, fixBad);

	// Where no Worker can be made, the checker runs in the page itself.
	await page.navigate(pageUrl + '?engine=page');
	const pageRun = await page.waitFor(SHOWN, 60000);
	const ip = await page.eval(STATE);
	ok(pageRun && ip.mode === 'page' && ip.obs === 'Sometimes', 'without a worker, the page checks in itself',
	   JSON.stringify({ pageRun, mode: ip.mode, obs: ip.obs }));

	ok(!page.errors.length, 'no uncaught error or console error in the page', page.errors);

	// Timings: each test checked by the page's engine (the worker's own
	// measure: --explain and the graph, no fixes) and by bin/lkmm (a
	// process, start-up with the model cache included).
	await page.navigate(pageUrl);
	await page.waitFor(DONE, 60000);
	let pageTotal = 0, nativeTotal = 0;
	for (const t of timings) {
		const text = fs.readFileSync(t.file, 'utf8');
		const r = await page.eval(`window.lkmmPlayground.engine.check(${JSON.stringify(t.name)},
			${JSON.stringify(text)}, 0).then((r) => r.ms)`);
		const nat = native(t.file, ['--explain', '--graph', work]);
		pageTotal += r;
		nativeTotal += nat.ms;
		note(`time ${t.name}: page ${r.toFixed(1)} ms, native ${nat.ms.toFixed(1)} ms`);
	}
	note(`time, all ${timings.length} tests: page ${pageTotal.toFixed(0)} ms, native ${nativeTotal.toFixed(0)} ms ` +
	     `(page: the check in WebAssembly; native: bin/lkmm check --explain --graph, one process each)`);
	const one = native(timings[0].file, ['--explain', '--graph', work, ...timings.slice(1).map((t) => t.file)]);
	note(`time, all ${timings.length} tests in one bin/lkmm check --explain --graph: ${one.ms.toFixed(0)} ms`);
	const mpFile = path.join(tree, 'tools/memory-model/litmus-tests/MP+poonceonces.litmus');
	const sug = await page.eval(`window.lkmmPlayground.engine.check('MP+poonceonces.litmus',
		${JSON.stringify(mp)}, 1).then((r) => r.ms)`);
	note(`time MP+poonceonces with fixes searched: page ${sug.toFixed(0)} ms, native ` +
	     `${native(mpFile, ['--explain', '--suggest']).ms.toFixed(0)} ms`);
	const sizes = fs.readdirSync(path.join(top, 'build/web')).map((f) =>
		[f, fs.statSync(path.join(top, 'build/web', f)).size]);
	const total = sizes.reduce((s, [, b]) => s + b, 0);
	note(`size of build/web: ${total} bytes (${sizes.map(([f, b]) => `${f} ${b}`).join(', ')})`);
	ok(fs.statSync(pageFile).size < 2 * 1024 * 1024, 'index.html is under 2 MB');
} catch (e) {
	ok(false, 'the browser run completes', String(e && e.stack || e));
} finally {
	if (server)
		server.close();
	if (chrome)
		await chrome.close();
	fs.rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
