/**
 * A static server for the built site, as a host with clean URLs serves it (`/guides/store` is
 * `guides/store.html`), on a free local port.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
};

/** The file a path names: itself, its `.html`, or its folder's `index.html`. */
function fileOf(folder: string, path: string): string | undefined {
  const base = join(folder, normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, ''));
  return [base, `${base}.html`, join(base, 'index.html')].find((file) => existsSync(file) && statSync(file).isFile());
}

export async function serveSite(folder: string): Promise<{ readonly url: string; close(): Promise<void> }> {
  if (!existsSync(join(folder, 'index.html'))) throw new Error(`docs:check: no site in ${folder}: run npm run docs:build first`);
  const server = createServer((request, response) => {
    const file = fileOf(folder, new URL(request.url ?? '/', 'http://localhost').pathname);
    if (file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error === undefined ? resolve() : reject(error)))),
  };
}
