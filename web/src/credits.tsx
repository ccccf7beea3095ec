import { Link } from './router';
import { formatNumber } from './format';
import type { Plan } from './types';

const credits = (value: number) => `${formatNumber(value)} ${value === 1 ? 'credit' : 'credits'}`;

/** What a text costs against what the account has: the sentence the playground says before it would be refused. */
export function shortfallSentence(required: number, balance: number): string {
  return `This needs ${credits(required)}; you have ${credits(balance)} available (${formatNumber(required - balance)} short).`;
}

/** A refusal for want of credits (402 insufficient_credits, or the playground's own check), with the way to more. */
export function CreditsShortfall({ required, balance, id }: { required: number; balance: number; id?: string }) {
  return (
    <div class="error" role="alert" id={id}>
      <p>Not enough credits. {shortfallSentence(required, balance)}</p>
      <p>
        Shorten the text, wait for your monthly refill, or <Link href="/app/account#credits">get more credits</Link>.
      </p>
    </div>
  );
}

/**
 * The plans of this server and how to get more credits. An OpenVox server is self-hosted: no payment runs through
 * it, so credits and plans come from its operator, who grants them with the admin CLI.
 */
export function PlansAndCredits({ plans, current, email }: { plans: Plan[]; current?: string; email?: string }) {
  const who = email ?? '<your email>';
  const other = plans.find((plan) => plan.id !== current && plan.price_cents > 0)?.id ?? 'pro';
  return (
    <>
      <div class="table-wrap">
        <table class="stack plans">
          <caption>The plans of this server</caption>
          <thead>
            <tr>
              <th scope="col">Plan</th>
              <th scope="col">Credits a month</th>
              <th scope="col">Characters per synthesis</th>
              <th scope="col">Cloned voices</th>
              <th scope="col">At once</th>
              <th scope="col">Price</th>
            </tr>
          </thead>
          <tbody>
            {plans.map((plan) => (
              <tr key={plan.id} aria-current={plan.id === current ? 'true' : undefined}>
                <th scope="row">
                  {plan.name}
                  {plan.id === current && ' (yours)'}
                </th>
                <td data-label="Credits a month">{formatNumber(plan.monthly_credits)}</td>
                <td data-label="Characters per synthesis">{formatNumber(plan.max_text_length)}</td>
                <td data-label="Cloned voices">{plan.max_cloned_voices}</td>
                <td data-label="At once">{plan.max_concurrent_syntheses}</td>
                <td data-label="Price">
                  {plan.price_cents === 0
                    ? 'free'
                    : `${(plan.price_cents / 100).toFixed(2)} ${plan.currency.toUpperCase()} a month`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>How to get more credits</h3>
      <p>
        Your credits are topped up to your plan's monthly amount at the start of each billing period. This server is
        self-hosted: it takes no payments, and more credits or another plan come from the person who runs it. Ask them
        for the number of credits you need (or the plan), and give them your account's email address, {who}.
      </p>
      <p>If you run this server yourself, the admin CLI on the server does it:</p>
      <pre>
        <code>{`openvox credits grant ${who} 10000 --reason "more credits"\nopenvox plan set ${who} ${other}`}</code>
      </pre>
    </>
  );
}
