import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs a bench job in a Node process of its own (tsx as a loader), so its heap and peak RSS are its own.
 * The job goes in the `variable` environment variable as JSON; the result is the last line of stdout.
 */
export function runInChild<Job, Result>(script: string, variable: string, job: Job): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, script)], {
      env: { ...process.env, [variable]: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || line === '') reject(new Error(`${script} exited ${String(code)}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}
