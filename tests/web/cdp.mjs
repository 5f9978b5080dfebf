// A small client of Chromium's DevTools protocol, with nothing but Node:
// start a headless Chromium with a profile of its own and speak to it
// over --remote-debugging-pipe (JSON messages, each ended by a NUL byte,
// written to its fd 3 and read from its fd 4: no port, no WebSocket), open
// pages and talk to them (evaluate, navigate, screenshots).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function launch(binary = process.env.CHROMIUM || 'chromium') {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lkmm-web-'));
	const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
		'--disable-extensions', '--disable-background-networking', '--disable-sync',
		'--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'];
	if (process.getuid && process.getuid() === 0)
		args.unshift('--no-sandbox');	// Chromium's sandbox refuses root
	const proc = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
	let stderr = '', exited = false;
	proc.stderr.on('data', (d) => { stderr += d; });
	const gone = new Promise((r) => proc.on('exit', () => { exited = true; r(); }));
	const browser = new Connection(proc.stdio[3], proc.stdio[4]);
	const version = await Promise.race([browser.send('Browser.getVersion'), gone, sleep(30000)]);
	if (!version) {
		proc.kill();
		fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
		throw new Error('chromium did not start: ' + stderr.slice(-500));
	}
	const close = async () => {
		try {
			await Promise.race([browser.send('Browser.close'), gone, sleep(3000)]);
		} catch (e) { /* gone already */ }
		if (!exited)
			proc.kill();
		await Promise.race([gone, sleep(3000)]);
		// Chromium's helper processes may still be writing the profile
		// for a moment after the browser has gone: retry, as rm -rf would.
		fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
	};
	return { browser, close, version, stderr: () => stderr };
}

// The browser's end of the pipe; pages are sessions on it (flatten mode).
class Connection {
	constructor(toChrome, fromChrome) {
		this.out = toChrome;
		this.next = 1;
		this.calls = new Map();
		this.listeners = [];
		let buffered = [];
		fromChrome.on('data', (chunk) => {
			let at;
			while ((at = chunk.indexOf(0)) >= 0) {
				buffered.push(chunk.subarray(0, at));
				this.receive(JSON.parse(Buffer.concat(buffered).toString('utf8')));
				buffered = [];
				chunk = chunk.subarray(at + 1);
			}
			if (chunk.length)
				buffered.push(chunk);
		});
		toChrome.on('error', () => {});
	}

	receive(m) {
		if (m.id && this.calls.has(m.id)) {
			const { resolve, reject, method } = this.calls.get(m.id);
			this.calls.delete(m.id);
			if (m.error)
				reject(new Error(`${method}: ${m.error.message}`));
			else
				resolve(m.result);
		} else if (m.method) {
			for (const l of this.listeners)
				l(m);
		}
	}

	send(method, params = {}, sessionId) {
		const id = this.next++;
		const msg = { id, method, params };
		if (sessionId)
			msg.sessionId = sessionId;
		return new Promise((resolve, reject) => {
			this.calls.set(id, { resolve, reject, method });
			this.out.write(JSON.stringify(msg) + '\0');
		});
	}

	on(fn) {
		this.listeners.push(fn);
	}
}

// A page: a new target, attached.
export async function openPage(browser) {
	const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
	const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
	const page = {
		errors: [],
		loads: 0,
		send: (method, params) => browser.send(method, params, sessionId),
	};
	browser.on((m) => {
		if (m.sessionId !== sessionId)
			return;
		if (m.method === 'Runtime.exceptionThrown') {
			const d = m.params.exceptionDetails;
			page.errors.push((d.exception && d.exception.description) || d.text);
		} else if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') {
			page.errors.push(m.params.args.map((a) => a.value ?? a.description).join(' '));
		} else if (m.method === 'Page.loadEventFired') {
			page.loads++;
		}
	});
	await page.send('Page.enable');
	await page.send('Runtime.enable');
	// Evaluate expr in the page (a promise is awaited); its value.
	page.eval = async (expr) => {
		const r = await page.send('Runtime.evaluate', { expression: expr, awaitPromise: true,
							       returnByValue: true });
		if (r.exceptionDetails)
			throw new Error('in the page: ' + ((r.exceptionDetails.exception &&
				r.exceptionDetails.exception.description) || r.exceptionDetails.text));
		return r.result.value;
	};
	// Wait until expr is true in the page, polling; false on timeout.
	page.waitFor = async (expr, timeoutMs = 30000) => {
		const end = Date.now() + timeoutMs;
		while (Date.now() < end) {
			try {
				if (await page.eval(expr))
					return true;
			} catch (e) { /* the page is loading */ }
			await sleep(20);
		}
		return false;
	};
	page.navigate = async (url) => {
		const before = page.loads;
		await page.send('Page.navigate', { url });
		const end = Date.now() + 30000;
		while (page.loads === before && Date.now() < end)
			await sleep(10);
	};
	// The viewport, or clip ({ x, y, width, height, scale }) of the whole page.
	page.screenshot = async (file, clip) => {
		const { data } = await page.send('Page.captureScreenshot', clip ?
			{ format: 'png', clip, captureBeyondViewport: true } :
			{ format: 'png', captureBeyondViewport: false });
		fs.writeFileSync(file, Buffer.from(data, 'base64'));
	};
	page.viewport = (width, height, mobile = false) =>
		page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile });
	return page;
}
