import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Issue 14: a configuration error found after the environment is parsed (a
 * missing JWT_SECRET in production, found when the signing key is loaded)
 * stops the API with the configuration message and EX_CONFIG (78), no stack trace.
 */

const ROOT = path.resolve(__dirname, '../..');

function startApi(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'api/main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('the API entry point with a bad configuration', () => {
  it('NODE_ENV=production without JWT_SECRET: the configuration error and exit 78', async () => {
    const { JWT_SECRET: _unset, ...env } = process.env;
    const { code, stderr } = await startApi({ ...env, NODE_ENV: 'production', PORT: '1' });
    expect(stderr).toContain('invalid configuration');
    expect(stderr).toContain('JWT_SECRET: required in production');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code).toBe(78);
  });

  it('a bad variable: the configuration error and exit 78', async () => {
    const { code, stderr } = await startApi({ ...process.env, PORT: '70000' });
    expect(stderr).toMatch(/invalid configuration:\n\s+PORT:/);
    expect(code).toBe(78);
  });
});
