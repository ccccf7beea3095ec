import type { Knex } from 'knex';

/**
 * Deleting an API key or an account (or marking it deleted) NOTIFYs `auth_changed` with
 * `account:<id>` (lib/progress.ts AUTH_CHANNEL), and deleting a synthesis
 * (its row, or marking it deleted) NOTIFYs `synthesis_progress` with its id,
 * from whatever path deletes it (a cascade included): API processes cache
 * who a credential is (api/auth/cache.ts) and ended statuses
 * (api/routes/tts/statusCache.ts), and drop them on these notifications.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function openvox_api_key_deleted() returns trigger language plpgsql as $$
    begin
      perform pg_notify('auth_changed', 'account:' || old.account_id);
      return old;
    end $$;
    create function openvox_account_deleted() returns trigger language plpgsql as $$
    begin
      -- Deleted, or marked deleted where the schema has the mark (read through jsonb: the column may not exist).
      if tg_op = 'DELETE' or (to_jsonb(new) ->> 'deleted_at') is distinct from (to_jsonb(old) ->> 'deleted_at') then
        perform pg_notify('auth_changed', 'account:' || old.id);
      end if;
      return null;
    end $$;
    create function openvox_synthesis_deleted() returns trigger language plpgsql as $$
    begin
      perform pg_notify('synthesis_progress', old.id::text);
      return null;
    end $$;
    create trigger syntheses_deleted after update of deleted_at or delete on syntheses for each row execute function openvox_synthesis_deleted();
    create trigger api_keys_auth_changed after delete on api_keys for each row execute function openvox_api_key_deleted();
    create trigger accounts_auth_changed after update or delete on accounts for each row execute function openvox_account_deleted();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger syntheses_deleted on syntheses;
    drop function openvox_synthesis_deleted();
    drop trigger accounts_auth_changed on accounts;
    drop trigger api_keys_auth_changed on api_keys;
    drop function openvox_account_deleted();
    drop function openvox_api_key_deleted();
  `);
}
