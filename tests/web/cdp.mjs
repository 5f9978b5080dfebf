// A small client of Chromium's DevTools protocol, with nothing but Node
// (20, run with --experimental-websocket for its WebSocket): start a
// headless Chromium with a profile of its own, open one page, and talk to
// it (evaluate, navigate, screenshots).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function launch(binary = process.env.CHROMIUM || 'chromium') {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lkmm-web-'));
	const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
		'--disable-extensions', '--disable-background-networking', '--disable-sync',
		'--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'];
	if (process.getuid && process.getuid() === 0)
		args.unshift('--no-sandbox');	// Chromium's sandbox refuses root
	const proc = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	proc.stderr.on('data', (d) => { stderr += d; });
	let exited = false;
	proc.on('exit', () => { exited = true; });
	const portFile = path.join(profile, 'DevToolsActivePort');
	for (let i = 0; !fs.existsSync(portFile) || !fs.readFileSync(portFile, 'utf8').includes('\n'); i++) {
		if (exited || i > 300) {
			proc.kill();
			throw new Error('chromium did not start: ' + stderr.slice(-500));
		}
		await sleep(100);
	}
	const [port, wsPath] = fs.readFileSync(portFile, 'utf8').split('\n');
	const browser = new Connection(`ws://127.0.0.1:${port}${wsPath}`);
	await browser.opened;
	const close = async () => {
		try {
			await Promise.race([browser.send('Browser.close'), sleep(2000)]);
		} catch (e) { /* gone already */ }
		browser.ws.close();
		if (!exited)
			proc.kill();
		await Promise.race([new Promise((r) => proc.on('exit', r)), sleep(3000)]);
		fs.rmSync(profile, { recursive: true, force: true });
	};
	return { browser, close, stderr: () => stderr };
}

// One WebSocket to the browser; pages are sessions on it (flatten mode).
class Connection {
	constructor(url) {
		this.ws = new WebSocket(url);
		this.next = 1;
		this.calls = new Map();
		this.listeners = [];
		this.opened = new Promise((resolve, reject) => {
			this.ws.onopen = resolve;
			this.ws.onerror = (e) => reject(new Error('DevTools connection failed: ' + (e.message || e.type)));
		});
		this.ws.onmessage = (e) => {
			const m = JSON.parse(e.data);
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
		};
	}

	send(method, params = {}, sessionId) {
		const id = this.next++;
		const msg = { id, method, params };
		if (sessionId)
			msg.sessionId = sessionId;
		return new Promise((resolve, reject) => {
			this.calls.set(id, { resolve, reject, method });
			this.ws.send(JSON.stringify(msg));
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
	page.screenshot = async (file) => {
		const { data } = await page.send('Page.captureScreenshot', { format: 'png',
									     captureBeyondViewport: false });
		fs.writeFileSync(file, Buffer.from(data, 'base64'));
	};
	page.viewport = (width, height, mobile = false) =>
		page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile });
	return page;
}
