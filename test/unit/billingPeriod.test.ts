import { addMonthsUtc, billingPeriod } from '../../lib/billingPeriod';

describe('billing periods (monthly from verification, UTC)', () => {
  const anchor = new Date('2025-01-31T10:00:00.000Z');

  it('clamps a start past the end of a shorter month to its last day, as PostgreSQL does', () => {
    expect(addMonthsUtc(anchor, 1).toISOString()).toBe('2025-02-28T10:00:00.000Z');
    expect(addMonthsUtc(anchor, 2).toISOString()).toBe('2025-03-31T10:00:00.000Z');
    expect(addMonthsUtc(new Date('2024-01-31T00:00:00.000Z'), 1).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(addMonthsUtc(anchor, 12).toISOString()).toBe('2026-01-31T10:00:00.000Z');
  });

  it.each([
    ['2025-01-31T10:00:00.000Z', '2025-01-31T10:00:00.000Z', '2025-02-28T10:00:00.000Z'],
    ['2025-02-28T09:59:59.999Z', '2025-01-31T10:00:00.000Z', '2025-02-28T10:00:00.000Z'],
    ['2025-02-28T10:00:00.000Z', '2025-02-28T10:00:00.000Z', '2025-03-31T10:00:00.000Z'],
    ['2025-03-15T00:00:00.000Z', '2025-02-28T10:00:00.000Z', '2025-03-31T10:00:00.000Z'],
    ['2025-12-31T23:00:00.000Z', '2025-12-31T10:00:00.000Z', '2026-01-31T10:00:00.000Z'],
  ])('at %s the period is [%s, %s)', (now, start, end) => {
    const period = billingPeriod(anchor, new Date(now));
    expect([period.start.toISOString(), period.end.toISOString()]).toEqual([start, end]);
  });
});
