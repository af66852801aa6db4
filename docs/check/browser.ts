/**
 * A headless Chromium driven over the DevTools protocol (Node's own WebSocket, no browser package): open a
 * page, evaluate expressions in it, wait on a condition with a deadline, take a screenshot.
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

  /** Starts `chromium` headless on a fresh profile and connects to it. */
  static async launch(executable: string): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), 'dynafold-chromium-'));
    const child = spawn(
      executable,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        '--window-size=1280,900',
        '--remote-debugging-port=0',
        `--user-data-dir=${profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const endpoint = await new Promise<string>((resolve, reject) => {
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
      child.once('exit', (code) => reject(new Error(`chromium exited (${String(code)}):\n${output}`)));
    });
    const socket = new WebSocket(endpoint);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Browser(child, socket, profile);
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
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    return new Page(this, sessionId);
  }

  async close(): Promise<void> {
    this.socket.close();
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill();
    await exited;
    // Chromium's helper processes outlive the browser by a moment and may still write into the profile:
    // removing it is retried, and a temporary directory left behind does not fail the check.
    try {
      rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (error) {
      console.warn(`docs:check: left the temporary profile ${this.profile} (${String(error)})`);
    }
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
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A PNG of the viewport. */
  async screenshot(): Promise<Buffer> {
    const { data } = (await this.browser.send('Page.captureScreenshot', { format: 'png' }, this.sessionId)) as { data: string };
    return Buffer.from(data, 'base64');
  }
}
