/**
 * A headless Chromium driven over the DevTools protocol (Node's own WebSocket, no browser package): open a
 * page, evaluate expressions in it, wait on a condition with a deadline, take screenshots at a width.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Reply {
  readonly id?: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** How long a page may take to show what is waited for: generous, the machine may be loaded. */
const WAIT_MS = 90_000;

/** The flags of a quiet, throwaway headless browser: no GPU, no network of its own, no first-run pages. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  '--window-size=1280,900',
  '--remote-debugging-port=0',
];

/**
 * Node.js 22 has a global WebSocket; Node.js 20 has none. Checked before Chromium starts, so an older
 * Node.js says what it needs and leaves nothing running.
 */
function requireWebSocket(): void {
  if (typeof WebSocket === 'undefined')
    throw new Error(`docs:check needs Node.js 22.22.2 or later (see .nvmrc), for its global WebSocket; this is Node.js ${process.version}`);
}

/** The DevTools endpoint Chromium prints on stderr once it listens. */
function endpointOf(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start in ${WAIT_MS} ms:\n${output}`)), WAIT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(output);
      if (found?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`chromium could not be started: ${error.message} (set CHROMIUM to its path)`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chromium exited (${String(code)}):\n${output}`));
    });
  });
}

export class Browser {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void }>();

  private constructor(
    private readonly process: ChildProcess,
    private readonly socket: WebSocket,
    private readonly profile: string,
  ) {
    socket.addEventListener('message', (message: { readonly data: unknown }) => {
      const reply = JSON.parse(String(message.data)) as Reply;
      if (reply.id === undefined) return;
      this.pending.get(reply.id)?.resolve(reply);
      this.pending.delete(reply.id);
    });
  }

  /** Starts `chromium` headless on a fresh profile and connects to it; nothing is left running if that fails. */
  static async launch(executable: string): Promise<Browser> {
    requireWebSocket();
    const profile = mkdtempSync(join(tmpdir(), 'dynafold-chromium-'));
    const child = spawn(executable, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const socket = new WebSocket(await endpointOf(child));
      await new Promise((resolve, reject) => {
        socket.addEventListener('open', resolve, { once: true });
        socket.addEventListener('error', reject, { once: true });
      });
      return new Browser(child, socket, profile);
    } catch (error) {
      await stop(child, profile);
      throw error;
    }
  }

  /** One DevTools command, on a page's session or the browser's. */
  async send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve) => {
      this.pending.set(id, { resolve });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
    });
    if (reply.error !== undefined) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result ?? {};
  }

  /** A new tab at the URL, attached. */
  async open(url: string): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    return new Page(this, sessionId);
  }

  async close(): Promise<void> {
    this.socket.close();
    await stop(this.process, this.profile);
  }
}

/** Ends Chromium and removes its profile. */
async function stop(child: ChildProcess, profile: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
  // Chromium's helper processes outlive the browser by a moment and may still write into the profile:
  // removing it is retried, and a temporary directory left behind does not fail the check.
  try {
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (error) {
    console.warn(`docs:check: left the temporary profile ${profile} (${String(error)})`);
  }
}

export class Page {
  constructor(
    private readonly browser: Browser,
    private readonly sessionId: string,
  ) {}

  /** The value of an expression evaluated in the page (awaited if it is a promise). */
  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = (await this.browser.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      this.sessionId,
    )) as { result: { value: T }; exceptionDetails?: { text: string } };
    if (exceptionDetails !== undefined) throw new Error(`${expression}: ${exceptionDetails.text}`);
    return result.value;
  }

  /** Waits until the expression is truthy in the page; rejects, naming what was awaited, at the deadline. */
  async waitFor(what: string, expression: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!(await this.evaluate<boolean>(`Boolean(${expression})`).catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`docs:check: ${what} did not show within ${WAIT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Lays the page out at a width, as a phone (`mobile`) or a desktop browser of that width shows it. */
  async setViewport(width: number, height: number, mobile: boolean): Promise<void> {
    await this.browser.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile }, this.sessionId);
  }

  /** Loads a URL in this tab (a full load, not the site's client-side navigation). */
  async navigate(url: string): Promise<void> {
    await this.browser.send('Page.navigate', { url }, this.sessionId);
  }

  /** A PNG of the viewport, or of the area given (which may lie below the viewport). */
  async screenshot(clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    const params = clip === undefined ? { format: 'png' } : { format: 'png', clip: { ...clip, scale: 1 }, captureBeyondViewport: true };
    const { data } = (await this.browser.send('Page.captureScreenshot', params, this.sessionId)) as { data: string };
    return Buffer.from(data, 'base64');
  }
}
