import { get, type Page } from '../api';
import { formatDate, formatNumber } from '../format';
import { ErrorMessage, PageTitle, useLoad } from '../ui';
import type { Plan, Profile, Synthesis } from '../types';

/** At most this many history pages are read for the chart (100 entries each). */
const MAX_PAGES = 10;

/** Credits charged per UTC day of the period, from the completed syntheses in the history. */
async function creditsByDay(periodStart: string, signal: AbortSignal): Promise<Map<string, number>> {
  const days = new Map<string, number>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await get<Page<Synthesis>>(`tts/history/?status=completed&page=${page}&page_size=100`, signal);
    let older = false;
    for (const entry of answer.results) {
      const at = entry.completed_at ?? entry.created_at;
      if (at < periodStart) {
        older = true;
        continue;
      }
      days.set(at.slice(0, 10), (days.get(at.slice(0, 10)) ?? 0) + entry.credits_charged);
    }
    // Newest first: once the page reaches before the period, the rest is older too.
    if (!answer.next || older) break;
  }
  return days;
}

function DailyChart({ start, end, days }: { start: string; end: string; days: Map<string, number> }) {
  const labels: string[] = [];
  const last = new Date(Math.min(Date.parse(end), Date.now()));
  for (let day = new Date(start); day <= last; day = new Date(day.getTime() + 86_400_000)) labels.push(day.toISOString().slice(0, 10));
  const max = Math.max(1, ...labels.map((label) => days.get(label) ?? 0));
  const width = 640;
  const height = 160;
  const bar = width / Math.max(labels.length, 1);
  const total = labels.reduce((sum, label) => sum + (days.get(label) ?? 0), 0);
  return (
    <figure>
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="chart-title" class="chart">
        <title id="chart-title">
          Credits used per day this period: {formatNumber(total)} in total, at most {formatNumber(max)} on one day.
        </title>
        {labels.map((label, index) => {
          const value = days.get(label) ?? 0;
          const barHeight = (value / max) * height;
          return (
            <g key={label}>
              <rect x={index * bar + 1} y={height - barHeight} width={Math.max(bar - 2, 1)} height={barHeight} class="bar">
                <title>
                  {label}: {formatNumber(value)} credits
                </title>
              </rect>
              {(index === 0 || index === labels.length - 1) && (
                <text x={index * bar + bar / 2} y={height + 15} text-anchor={index === 0 ? 'start' : 'end'} class="axis">
                  {label.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>Credits used per day (UTC), from your completed syntheses.</figcaption>
    </figure>
  );
}

export function Usage() {
  const profile = useLoad((signal) => get<Profile>('auth/profile/', signal), []);
  const plans = useLoad((signal) => get<Page<Plan>>('subscription-plans/', signal), []);
  const start = profile.data?.usage.period_start;
  const days = useLoad((signal) => (start ? creditsByDay(start, signal) : Promise.resolve(null)), [start]);
  const plan = plans.data?.results.find((candidate) => candidate.id === profile.data?.subscription_tier);
  const data = profile.data;
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <ErrorMessage error={profile.error ?? plans.error ?? days.error} />
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
            <div>
              <dt>Used this period</dt>
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
          <p>
            Period: {formatDate(data.usage.period_start)} to {formatDate(data.usage.period_end)}.
          </p>
          {days.data && <DailyChart start={data.usage.period_start} end={data.usage.period_end} days={days.data} />}
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
        </section>
      )}
    </>
  );
}
