/**
 * Billing periods run monthly from an account's verification, in UTC: period
 * k starts at anchor + k months, a day past the end of a shorter month
 * clamped to its last day (as PostgreSQL adds months; activities/billing.ts
 * finds due refills with the same rule).
 */
export function addMonthsUtc(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/** The billing period containing `now`. */
export function billingPeriod(anchor: Date, now = new Date()): { start: Date; end: Date } {
  let months = (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  while (months > 0 && addMonthsUtc(anchor, months) > now) months -= 1;
  while (addMonthsUtc(anchor, months + 1) <= now) months += 1;
  months = Math.max(0, months);
  return { start: addMonthsUtc(anchor, months), end: addMonthsUtc(anchor, months + 1) };
}
