// The .litmus files under a directory, recursively, sorted: the page's
// picker (build.mjs) and its test (tests/web/web.mjs) list the same ones.
import fs from 'node:fs';
import path from 'node:path';

export function litmusFiles(dir) {
	const out = [];
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory())
			out.push(...litmusFiles(p));
		else if (e.name.endsWith('.litmus'))
			out.push(p);
	}
	return out.sort();
}
