import { useStack } from '../helpers/stack';
import { BAD_PAGE_QUERIES } from '../helpers/http';

describe('GET subscription-plans in both families', () => {
  const { api } = useStack({ env: { PUBLIC_URL: 'https://voice.example.test' } });

  const get = (path: string) => fetch(`${api.url}${path}`);

  it.each([
    '/api/v1/subscription-plans/',
    '/api/subscription-plans/',
    '/api/v1/subscription-plans',
    '/api/subscription-plans',
  ])('%s lists the plans cheapest first, the free plan as API.md defines it', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ count: 4, next: null, previous: null });
    expect(body.results[0]).toEqual({
      id: 'free',
      name: 'Free',
      price_cents: 0,
      currency: 'USD',
      monthly_credits: 35000,
      credits_per_character: 1,
      max_text_length: 5000,
      max_cloned_voices: 3,
      max_concurrent_syntheses: 2,
      output_formats: ['wav', 'mp3', 'ogg', 'flac'],
    });
    const prices = body.results.map((plan: { price_cents: number }) => plan.price_cents);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it('paginates with full next/previous URLs on PUBLIC_URL in the caller family', async () => {
    const first = (await (await get('/api/subscription-plans/?page_size=3')).json()) as any;
    expect(first.results).toHaveLength(3);
    expect(first.previous).toBeNull();
    expect(first.next).toBe('https://voice.example.test/api/subscription-plans/?page_size=3&page=2');

    const second = (await (await get('/api/v1/subscription-plans/?page=2&page_size=3')).json()) as any;
    expect(second.results).toHaveLength(1);
    expect(second.next).toBeNull();
    expect(second.previous).toBe('https://voice.example.test/api/v1/subscription-plans/?page=1&page_size=3');
    const ids = [...first.results, ...second.results].map((plan: { id: string }) => plan.id);
    expect(new Set(ids).size).toBe(4);
  });

  it('answers a page past the last with 200 and empty results', async () => {
    const response = await get('/api/v1/subscription-plans/?page=99');
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.results).toEqual([]);
    expect(body.count).toBe(4);
    expect(body.next).toBeNull();
  });

  it.each(BAD_PAGE_QUERIES)('rejects ?%s with 400 validation_error on %s', async (query, field) => {
    for (const family of ['/api/v1', '/api']) {
      const response = await get(`${family}/subscription-plans/?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as any;
      expect(problem.code).toBe('validation_error');
      expect(Object.keys(problem.errors)).toEqual([field]);
    }
  });

  it('is public: no credentials needed', async () => {
    const response = await fetch(`${api.url}/api/v1/subscription-plans/`, {
      headers: { Authorization: 'Bearer nonsense' },
    });
    expect(response.status).toBe(200);
  });
});
