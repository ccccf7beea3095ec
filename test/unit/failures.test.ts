import { ServiceError } from '@temporalio/client';
import { ApiError, notFound } from '../../api/errors';
import { toApiError } from '../../api/failures';

describe('toApiError', () => {
  it('passes API errors through as expected ones', () => {
    const error = notFound();
    expect(toApiError(error)).toEqual({ error, unexpected: false });
  });

  it.each([
    [
      'a knex pool timeout',
      Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }),
      'postgresql',
    ],
    [
      'a PostgreSQL admin shutdown',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
      'postgresql',
    ],
    ['a Temporal service error', new ServiceError('unavailable'), 'temporal'],
  ])('maps %s to 503 service_unavailable naming the dependency', (_, thrown, dependency) => {
    const { error } = toApiError(thrown);
    expect(error.status).toBe(503);
    expect(error.code).toBe('service_unavailable');
    expect(error.message).toContain(dependency);
    expect(error.headers['Retry-After']).toBeDefined();
  });

  it('maps anything unknown to a bare 500 that reveals nothing', () => {
    const { error, unexpected } = toApiError(new TypeError('cannot read x of undefined at /srv/app.js:12'));
    expect(unexpected).toBe(true);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(error.message).not.toMatch(/app\.js|undefined/);
  });
});
