import { useEffect, useState } from 'preact/hooks';
import { get, type Page } from '../api';
import { formatNumber } from '../format';
import { Link } from '../router';
import { useLoad } from '../hooks';
import { ErrorMessage, PageTitle } from '../ui';
import type { Plan, Profile } from '../types';

const DAY = 86_400_000;

/** A UTC day as people read it ("Nov 25"). */
const formatDay = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
/** The last day of a period whose end is exclusive (the next one starts then). */
const lastDay = (end: string) => new Date(Date.parse(end) - 1).toISOString();

/** The smallest 2, 4 or 10 × 10ⁿ at or above `value`: an axis top whose half is a whole number too. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  return ([2, 4, 10].find((step) => step * power >= value) ?? 10) * power;
}

/** Whether the window is a phone's width (600 px or less), following its changes. */
function useNarrow(): boolean {
  const query = window.matchMedia('(max-width: 600px)');
  const [narrow, setNarrow] = useState(query.matches);
  useEffect(() => {
    const update = () => setNarrow(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return narrow;
}

/** Credits per UTC day of the period, with both axes labelled. */
function DailyChart({ start, end, daily }: { start: string; end: string; daily: Profile['usage']['daily'] }) {
  const byDay = new Map(daily.map((day) => [day.date, day.credits_used]));
  const labels: string[] = [];
  for (let day = Date.parse(start); day < Date.parse(end); day += DAY)
    labels.push(new Date(day).toISOString().slice(0, 10));
  const max = Math.max(0, ...labels.map((label) => byDay.get(label) ?? 0));
  const top = niceCeiling(max);
  const ticks = [0, top / 2, top];
  const [left, right, above, below] = [56, 8, 10, 28];
  // Drawn at about the width it is shown (a phone's is narrower), so its 12 px labels stay 12 px, not shrunk.
  const width = useNarrow() ? 360 : 640;
  const height = 200;
  const plotWidth = width - left - right;
  const plotHeight = height - above - below;
  const bar = plotWidth / Math.max(labels.length, 1);
  const y = (value: number) => above + plotHeight - (value / top) * plotHeight;
  const total = labels.reduce((sum, label) => sum + (byDay.get(label) ?? 0), 0);
  // First, middle and last day on the time axis.
  const dated = [...new Set([0, Math.floor((labels.length - 1) / 2), labels.length - 1])];
  return (
    <figure>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title" class="chart">
        <title id="chart-title">
          Credits used per day from {formatDay(start)} to {formatDay(lastDay(end))}: {formatNumber(total)} in total, at
          most {formatNumber(max)} on one day.
        </title>
        {ticks.map((tick) => (
          <g key={tick} class="tick">
            <line x1={left} x2={width - right} y1={y(tick)} y2={y(tick)} class="grid" />
            <text x={left - 6} y={y(tick) + 4} text-anchor="end" class="axis">
              {formatNumber(tick)}
            </text>
          </g>
        ))}
        {labels.map((label, index) => {
          const value = byDay.get(label) ?? 0;
          return (
            <rect
              key={label}
              x={left + index * bar + 1}
              y={y(value)}
              width={Math.max(bar - 2, 1)}
              height={y(0) - y(value)}
              class="bar"
            >
              <title>
                {formatDay(label)}: {formatNumber(value)} credits
              </title>
            </rect>
          );
        })}
        {dated.map((index) => (
          <text
            key={index}
            x={left + index * bar + bar / 2}
            y={height - 8}
            text-anchor={index === 0 ? 'start' : index === labels.length - 1 ? 'end' : 'middle'}
            class="axis"
          >
            {formatDay(labels[index])}
          </text>
        ))}
      </svg>
      <figcaption>Credits used per day (UTC) this month; the axis on the left counts credits.</figcaption>
    </figure>
  );
}

export function Usage() {
  const profile = useLoad((signal) => get<Profile>('auth/profile/', signal), []);
  const plans = useLoad((signal) => get<Page<Plan>>('subscription-plans/', signal), []);
  const plan = plans.data?.results.find((candidate) => candidate.id === profile.data?.subscription_tier);
  const data = profile.data;
  const billing = data?.billing_period;
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <ErrorMessage error={profile.error ?? plans.error} />
      {data && (
        <>
          <dl class="stats">
            <div>
              <dt>Credits available</dt>
              <dd>{formatNumber(data.credit_balance)}</dd>
            </div>
            <div>
              <dt>Reserved by running syntheses</dt>
              <dd>{formatNumber(data.credits_reserved)}</dd>
            </div>
            {billing && (
              <div>
                <dt>Next refill</dt>
                <dd>{formatDay(billing.end)}</dd>
              </div>
            )}
          </dl>
          {billing ? (
            <p>
              Billing period: {formatDay(billing.start)} to {formatDay(billing.end)}. On {formatDay(billing.end)} your
              credits are topped up
              {plan ? ` to ${formatNumber(plan.monthly_credits)}` : ''}, and a new period starts.
            </p>
          ) : (
            <p>Your credits are granted when your email address is verified, and topped up monthly from then.</p>
          )}
          <h2>
            This month ({formatDay(data.usage.period_start)} to {formatDay(lastDay(data.usage.period_end))})
          </h2>
          <dl class="stats">
            <div>
              <dt>Credits used</dt>
              <dd>{formatNumber(data.usage.credits_used)}</dd>
            </div>
            <div>
              <dt>Syntheses (failed)</dt>
              <dd>
                {data.usage.syntheses} ({data.usage.syntheses_failed})
              </dd>
            </div>
            <div>
              <dt>Audio made</dt>
              <dd>{data.usage.audio_seconds.toFixed(1)} s</dd>
            </div>
            <div>
              <dt>Cloned voices</dt>
              <dd>
                {data.usage.cloned_voices} of {data.usage.cloned_voices_limit}
              </dd>
            </div>
          </dl>
          <DailyChart start={data.usage.period_start} end={data.usage.period_end} daily={data.usage.daily} />
        </>
      )}
      {plan && (
        <section aria-labelledby="plan">
          <h2 id="plan">Your plan: {plan.name}</h2>
          <ul>
            <li>{formatNumber(plan.monthly_credits)} credits a month</li>
            <li>Up to {formatNumber(plan.max_text_length)} characters per synthesis</li>
            <li>{plan.max_cloned_voices} cloned voices</li>
            <li>{plan.max_concurrent_syntheses} syntheses at a time</li>
            <li>Formats: {plan.output_formats.join(', ')}</li>
          </ul>
          <p>
            The other plans, and how to get more credits: <Link href="/app/account#credits">Account</Link>.
          </p>
        </section>
      )}
    </>
  );
}
