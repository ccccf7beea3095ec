import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import type { ApiDeps } from '../../deps';
import { offsetOf, presentPage } from '../../pagination';
import { defineRoute, type Route, inBothFamilies } from '../../route';
import { problemResponses } from '../../openapi';
import { presentPlan } from './presenter';
import { PlanListQuery, PlanPage } from './schema';

export function planRoutes({ config, db }: ApiDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      paths: inBothFamilies('subscription-plans/'),
      summary: 'List subscription plans, cheapest first',
      tags: ['Plans'],
      query: PlanListQuery,
      responses: {
        200: { description: 'A page of plans', content: { 'application/json': { schema: PlanPage } } },
        ...problemResponses(400),
      },
      async handler(ctx, { query }) {
        const plans = SubscriptionPlan.query(db).orderBy([{ column: 'price_cents' }, { column: 'sort_order' }]);
        const [count, rows] = await Promise.all([
          plans.clone().resultSize(),
          plans.clone().offset(offsetOf(query)).limit(query.page_size),
        ]);
        ctx.body = presentPage(ctx, config.PUBLIC_URL, query, count, rows.map(presentPlan));
      },
    }),
  ];
}
