import { randomUUID } from 'node:crypto';
import { ensureRetentionSchedule } from '../../lib/schedules';
import { stableEventId } from '../../synthesis/webhooks';
import { requestsBelow } from '../helpers/http';
import { until } from '../helpers/eventually';
import { createAccount, createSynthesis, type TestAccount } from '../helpers/factories';
import { createObjectLister } from '../helpers/objects';
import { uploadConsentedSample } from '../helpers/samples';
import { useAccount, useStack } from '../helpers/stack';
import { synthesizeAndWait } from '../helpers/synthesis';

describe('consent revocation and history retention', () => {
  // The operator's default retention: 60 days for accounts without their own setting.
  const { deps, api } = useStack({ worker: true, env: { HISTORY_RETENTION_DAYS: '60' } });
  const objects = createObjectLister(deps.config);
  const owner = useAccount(deps);
  const stranger = useAccount(deps);
  const req = requestsBelow(api, '', owner);

  describe('revoke-consent', () => {
    let voiceId: string;
    beforeAll(async () => {
      const uploaded = await uploadConsentedSample(api.url, owner.access, 'Revocable');
      expect(uploaded.status).toBe(202);
      voiceId = uploaded.body.id;
      const ready = await until(
        'the clone is ready',
        async () => {
          const voice = (await req('GET', `/api/v1/voices/${voiceId}/`)).body;
          return voice.status === 'processing' ? null : voice;
        },
        180_000,
      );
      expect(ready.status).toBe('ready');
    }, 200_000);

    it("answers 404 for another account's clone and for unknown ids, 403 for a premade voice; nothing changes", async () => {
      for (const family of ['/api/v1', '/api']) {
        expect(
          (await req('POST', `${family}/voices/${voiceId}/revoke-consent/`, undefined, stranger)).body,
        ).toMatchObject({ status: 404, code: 'not_found' });
        expect((await req('POST', `${family}/voices/${randomUUID()}/revoke-consent/`)).status).toBe(404);
        expect((await req('POST', `${family}/voices/en-us-slt/revoke-consent/`)).body).toMatchObject({
          status: 403,
          code: 'permission_denied',
        });
      }
      expect((await req('GET', `/api/v1/voices/${voiceId}/`)).body.status).toBe('ready');
      expect(await deps.db('consent_records').where({ voice_id: voiceId }).first('revoked_at')).toEqual({
        revoked_at: null,
      });
    });

    it('disables the clone at once (409 voice_consent_revoked), deletes its objects and records the revocation', async () => {
      expect(await objects.list(`samples/${owner.id}/${voiceId}/`)).toEqual([
        `samples/${owner.id}/${voiceId}/normalized.wav`,
        `samples/${owner.id}/${voiceId}/original`,
      ]);
      const revoked = await req('POST', `/api/v1/voices/${voiceId}/revoke-consent/`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: voiceId, category: 'cloned', status: 'revoked', error: null });

      for (const path of ['/api/v1/tts/synthesize/', '/api/tts/synthesize/']) {
        const refused = await req('POST', path, { text: 'Hello there.', voice_id: voiceId });
        expect(refused.status).toBe(409);
        expect(refused.body).toMatchObject({ code: 'voice_consent_revoked', status: 409 });
      }
      await until(
        'the sample objects are gone',
        async () => (await objects.list(`samples/${owner.id}/${voiceId}/`)).length === 0,
        30_000,
      );
      const record = await deps.db('consent_records').where({ voice_id: voiceId }).first();
      expect(record.revoked_at).toBeInstanceOf(Date);
      expect(record.account_id).toBe(owner.id);
      expect((await deps.db('voices').where({ id: voiceId }).first('profile')).profile).toBeNull();

      // Lists show it revoked, in both families; a repeat keeps the first revocation time.
      const mine = (await req('GET', '/api/voices/my/')).body.results;
      expect(mine.find((voice: { id: string }) => voice.id === voiceId)).toMatchObject({ status: 'revoked' });
      const all = (await req('GET', '/api/v1/voices/?category=cloned')).body.results;
      expect(all.find((voice: { id: string }) => voice.id === voiceId)).toMatchObject({ status: 'revoked' });
      expect((await req('POST', `/api/voices/${voiceId}/revoke-consent`)).body.status).toBe('revoked');
      expect((await deps.db('consent_records').where({ voice_id: voiceId }).first('revoked_at')).revoked_at).toEqual(
        record.revoked_at,
      );
    });
  });

  it('stops a clone still processing: it stays revoked after its workflow ends, and its sample is removed', async () => {
    const uploaded = await uploadConsentedSample(api.url, owner.access, 'Withdrawn early', {
      endpoint: '/api/voices/clone/',
    });
    expect(uploaded.status).toBe(202);
    const id = uploaded.body.id;
    const revoked = await req('POST', `/api/voices/${id}/revoke-consent/`);
    expect(revoked.body).toMatchObject({ id, status: 'revoked' });
    await deps.temporal.workflow
      .getHandle(`voice-cloning:${id}`)
      .result()
      .catch(() => undefined);
    expect((await req('GET', `/api/v1/voices/${id}/`)).body.status).toBe('revoked');
    await until(
      'the sample objects are gone',
      async () => (await objects.list(`samples/${owner.id}/${id}/`)).length === 0,
      30_000,
    );
    expect((await req('POST', '/api/tts/synthesize/', { text: 'Hello.', voice_id: id })).body.code).toBe(
      'voice_consent_revoked',
    );
    expect((await deps.db('consent_records').where({ voice_id: id }).first('revoked_at')).revoked_at).toBeInstanceOf(
      Date,
    );
  }, 60_000);

  describe('history_retention_days', () => {
    it('is validated (1..3650 or null), saved and shown in the profile', async () => {
      for (const bad of [0, 3651, 1.5, '30', true]) {
        const reply = await req('PATCH', '/api/v1/auth/profile/', { history_retention_days: bad });
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({
          code: 'validation_error',
          errors: { history_retention_days: expect.any(Array) },
        });
      }
      expect((await req('PATCH', '/api/auth/profile/', {})).body.code).toBe('validation_error');
      expect((await req('PATCH', '/api/auth/profile/', { retention: 3 })).body.errors).toEqual({
        retention: ['Unknown field.'],
      });
      const saved = await req('PATCH', '/api/auth/profile/', { history_retention_days: 30 });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({ id: owner.id, history_retention_days: 30 });
      expect((await req('GET', '/api/v1/auth/profile/')).body.history_retention_days).toBe(30);
      expect(
        (await req('PATCH', '/api/v1/auth/profile/', { history_retention_days: null })).body.history_retention_days,
      ).toBeNull();
    });

    it('deletes older ended syntheses with their audio when the retention workflow runs; newer and running ones stay, credits do not move', async () => {
      const keeper = await createAccount(deps); // its own, longer retention beats the operator's 60 days
      expect((await req('PATCH', '/api/v1/auth/profile/', { history_retention_days: 30 })).status).toBe(200);
      expect((await req('PATCH', '/api/v1/auth/profile/', { history_retention_days: 365 }, keeper)).status).toBe(200);
      const defaulted = await createAccount(deps); // no setting: the operator's 60 days
      const make = async (who: TestAccount, text: string) => {
        const { id, done } = await synthesizeAndWait(api.url, who.access, { text, voice_id: 'en-us-slt' });
        expect(done.status).toBe('completed');
        return (await deps.db('syntheses').where({ id }).first()) as {
          id: string;
          audio_key: string;
        };
      };
      const old = await make(owner, 'An old synthesis.');
      const recent = await make(owner, 'A recent synthesis.');
      const keptByOwnSetting = await make(keeper, 'Kept for a year.');
      const oldByDefault = await make(defaulted, 'Old by the default.');
      // A delivery that announced the old synthesis (it carries its text) goes with it.
      const endpoint = await req('POST', '/api/v1/webhooks/', {
        url: 'https://example.com/hook',
        events: ['credits.low'],
      });
      expect(endpoint.status).toBe(201);
      const announced = {
        endpoint_id: endpoint.body.id,
        event_type: 'synthesis.completed',
        body: '{}',
        status: 'delivered',
      };
      await deps.db('webhook_deliveries').insert([
        { ...announced, id: randomUUID(), event_id: stableEventId('synthesis.completed', old.id) },
        { ...announced, id: randomUUID(), event_id: stableEventId('synthesis.completed', recent.id) },
      ]);
      const backdate = (id: string, days: number) =>
        deps
          .db('syntheses')
          .where({ id })
          .update({ created_at: deps.db.raw(`now() - make_interval(days => ?)`, [days]) });
      await backdate(old.id, 31);
      await backdate(recent.id, 29);
      await backdate(keptByOwnSetting.id, 90);
      await backdate(oldByDefault.id, 61);
      // A job still running is never deleted, however old.
      const running = await createSynthesis(deps, owner, {
        text: 'Still running.',
        status: 'processing',
        created_at: deps.db.raw(`now() - interval '400 days'`),
      });
      const everyone = [owner.id, keeper.id, defaulted.id];
      const credits = async () =>
        deps.db('accounts').whereIn('id', everyone).orderBy('id').select('id', 'credit_balance', 'credits_reserved');
      const ledgerRows = async () =>
        deps.db('credit_ledger').whereIn('account_id', everyone).orderBy('id').select('id', 'kind', 'amount');
      const [creditsBefore, ledgerBefore] = await Promise.all([credits(), ledgerRows()]);

      const result = await deps.temporal.workflow.execute('historyRetention', {
        workflowId: `history-retention-test-${randomUUID()}`,
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [{}],
      });
      expect(result.deleted).toBeGreaterThanOrEqual(2);

      const left = await deps
        .db('syntheses')
        .whereIn('id', [old.id, recent.id, keptByOwnSetting.id, oldByDefault.id, running])
        .pluck('id');
      expect(left.sort()).toEqual([recent.id, keptByOwnSetting.id, running].sort());
      expect(await objects.list(old.audio_key)).toEqual([]);
      expect(await objects.list(oldByDefault.audio_key)).toEqual([]);
      expect(await objects.list(recent.audio_key)).toEqual([recent.audio_key]);
      expect((await req('GET', `/api/v1/tts/history/${old.id}/`)).status).toBe(404);
      const deliveries = await deps.db('webhook_deliveries').where({ endpoint_id: endpoint.body.id }).pluck('event_id');
      expect(deliveries).toEqual([stableEventId('synthesis.completed', recent.id)]);
      expect(await credits()).toEqual(creditsBefore);
      expect(await ledgerRows()).toEqual(ledgerBefore);
      await deps.db('syntheses').where({ id: running }).delete();
    }, 120_000);

    it('runs from a schedule made once per worker start, the way the billing schedule is', async () => {
      const scheduleId = `history-retention-test-${randomUUID()}`;
      await ensureRetentionSchedule(deps.temporal, deps.config, { scheduleId, paused: true });
      await ensureRetentionSchedule(deps.temporal, deps.config, { scheduleId, paused: true }); // a second worker's start: no error
      const schedule = deps.temporal.schedule.getHandle(scheduleId);
      try {
        const described = await schedule.describe();
        expect(described.action).toMatchObject({
          type: 'startWorkflow',
          workflowType: 'historyRetention',
          taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        });
        expect(described.state.paused).toBe(true);
      } finally {
        await schedule.delete();
      }
    });
  });
});
