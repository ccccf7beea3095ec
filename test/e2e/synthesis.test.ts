import { requestsBelow } from '../helpers/http';
import { useAccount, useStack } from '../helpers/stack';
import { fetchAndMeasure, SYNTHESIS_FAMILIES, waitForSynthesis } from '../helpers/synthesis';

const SENTENCE = 'The quick brown fox jumps over the lazy dog.';

describe.each(SYNTHESIS_FAMILIES)('synthesis in the %s family', (family, idKey, statusPath, audioPath) => {
  const { deps, api } = useStack({ worker: true });
  const owner = useAccount(deps, { credits: 10_000 });
  const req = requestsBelow(api, family, owner);

  it('submits, reports progress to completion, serves measurable audio and charges the characters once', async () => {
    const accepted = await req('POST', '/tts/synthesize/', { text: `  ${SENTENCE}  `, voice_id: 'en-us-slt' });
    expect(accepted.status).toBe(202);
    const id = accepted.body[idKey];
    expect(accepted.body).toEqual({
      [idKey]: id,
      status: 'queued',
      created_at: expect.any(String),
      characters: SENTENCE.length,
      status_url: statusPath(id),
      warnings: [],
    });
    expect(accepted.headers.get('location')).toBe(statusPath(id));

    const done = await waitForSynthesis(api.url, statusPath(id), owner.access);
    expect(done).toMatchObject({
      [idKey]: id,
      status: 'completed',
      progress: 1,
      characters: SENTENCE.length,
      credits_charged: SENTENCE.length,
      output_format: 'wav',
      audio_url: audioPath(id),
      error: null,
    });
    expect(done.duration_seconds).toBeGreaterThan(1);
    expect(done.started_at).not.toBeNull();
    expect(done.completed_at).not.toBeNull();

    const audio = await fetchAndMeasure(api.url, done.audio_url, owner.access);
    expect(audio.response.status).toBe(200);
    expect(audio.response.headers.get('content-type')).toBe('audio/wav');
    expect(Number(audio.response.headers.get('content-length'))).toBe(audio.bytes.length);
    expect(audio.response.headers.get('accept-ranges')).toBe('bytes');
    expect(audio.format).toMatchObject({ codec: 'pcm_s16le' });
    expect(audio.analysis.durationSeconds).toBeCloseTo(done.duration_seconds, 1);
    expect(audio.analysis.durationSeconds).toBeGreaterThan(1.5);
    expect(audio.analysis.durationSeconds).toBeLessThan(8);
    expect(audio.analysis.silenceRatio).toBeLessThan(0.6);
    expect(audio.analysis.f0MedianHz).toBeGreaterThan(120);

    const ledger = await deps
      .db('credit_ledger')
      .where({ account_id: owner.id, reference: id })
      .orderBy('id')
      .select('kind', 'amount');
    expect(ledger.map((row) => [row.kind, Number(row.amount)])).toEqual([
      ['reserve', SENTENCE.length],
      ['capture', SENTENCE.length],
    ]);
  });
});
