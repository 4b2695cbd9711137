import type pg from "pg"

/**
 * graphile-worker's `add_jobs` (and `add_job`, which calls it) keep one generic plan per connection
 * instead of planning their statements again on every call (issue 22 §2, docs/performance.md "What
 * is left").
 *
 * PL/pgSQL plans a statement with parameters five times for the values at hand, then keeps a generic
 * plan only if it does not look dearer; `add_jobs`' statements read `unnest(specs)`, whose generic
 * estimate (10 rows) always looks dearer than the custom one (1 row), so every call planned its four
 * statements anew. Measured with pgbench on PostgreSQL 15, four `add_job` calls in a transaction:
 * 1.35 ms with the default, 0.70 ms with generic plans; in a PIX charge that was 0.45 of the 0.59 ms
 * `pg_stat_statements` gave its one `add_job`. The plans are the same ones (index lookups of one task
 * and one queue by name); only the planning is gone.
 *
 * Set after graphile-worker's own migrations, at every start: an upgrade of graphile-worker that
 * replaces the functions replaces their settings too, and the next start sets them again. Only when
 * missing, so that a start changes no catalogue row.
 */
export const pinWorkerPlans = async (client: pg.PoolClient) => {
  const { rows } = await client.query<{ signature: string }>(
    `select p.oid::regprocedure::text as signature
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = 'graphile_worker' and p.proname in ('add_job', 'add_jobs')
       and not coalesce('plan_cache_mode=force_generic_plan' = any(p.proconfig), false)`
  )
  for (const { signature } of rows) {
    // regprocedure text is already quoted as an identifier where it needs to be.
    await client.query(`alter function ${signature} set plan_cache_mode = force_generic_plan`)
  }
}
