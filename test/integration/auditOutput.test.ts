import { randomUUID } from 'node:crypto';
import { runCli } from '../../cli/program';
import { useStack } from '../helpers/stack';

/**
 * `openvox audit` prints the operator's name as OPENVOX_OPERATOR gave it when
 * the action was recorded: a name with a newline, tabs or terminal escapes
 * must stay inside its own field of its own line.
 */

const { deps } = useStack({ api: false });

async function openvox(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  const code = await runCli(args, {
    out: (text) => (stdout += text),
    err: () => undefined,
    env: { ...process.env, TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE, ...env },
    tty: false,
  });
  return { code, stdout };
}

it('escapes an operator name that would forge an audit line', async () => {
  const forged = '2001-01-01T00:00:00.000Z\tada (support)\tplan set';
  const operator = `mallory\x1b[1A\x1b[2K\n${forged}`;
  const created = await openvox(['user', 'create', `audit-${randomUUID()}@example.org`, '--verified'], {
    OPENVOX_OPERATOR: operator,
  });
  expect(created.code).toBe(0);
  const audit = await openvox(['audit', '--limit', '1000']);
  expect(audit.code).toBe(0);
  const lines = audit.stdout.trimEnd().split('\n');
  expect(lines.some((line) => line.startsWith('2001-'))).toBe(false);
  expect(audit.stdout).not.toContain('\x1b');
  const ours = lines.filter((line) => line.includes('mallory'));
  expect(ours).toHaveLength(1);
  expect(ours[0].split('\t')[1]).toBe('mallory\\x1b[1A\\x1b[2K\\n2001-01-01T00:00:00.000Z\\tada (support)\\tplan set');
});
