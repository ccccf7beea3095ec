import { call } from '../helpers/http';
import { createTestDeps, startApi } from '../helpers/stack';
import { signupWorkflowId } from '../../synthesis/contracts';

/**
 * A resend's signal to the signup workflow is sent after the 202 (so every
 * address answers alike). An API process that shuts down right after the
 * answer must still send it: closing the deps waits for that work.
 */
describe('API shutdown right after a resend', () => {
  it('the resend signal reaches the signup workflow before the connections close', async () => {
    const deps = createTestDeps();
    const api = await startApi(deps);
    const checker = createTestDeps();
    try {
      const email = `shutdown-${Date.now()}@example.com`;
      const registered = await call(api.url, 'POST', '/api/v1/auth/register/', {
        email,
        password: 'correct horse battery',
        name: 'Shut Down',
      });
      expect(registered.status).toBe(201);
      const resent = await call(api.url, 'POST', '/api/v1/auth/resend-verification/', { email });
      expect(resent.status).toBe(202);
      // What api/main.ts does on SIGTERM: stop listening, then close the deps.
      await api.close();
      await deps.close();

      const history = await checker.temporal.workflow.getHandle(signupWorkflowId(registered.body.id)).fetchHistory();
      const signals = (history.events ?? []).filter(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'resend',
      );
      expect(signals).toHaveLength(1);
    } finally {
      await checker.close();
    }
  });
});
