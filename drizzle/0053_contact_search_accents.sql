-- Accent-insensitive contact search: "jose" finds "José", "nunez" finds "Núñez", "muller" finds
-- "Müller", and "josé" finds "Jose" (as HubSpot's and Mailchimp's contact search do). search_text (a
-- generated column, 0004) was lower(name, email, company, phones), so a search matched accents exactly.
-- It is now folded by contact_search_fold: canonical decomposition (NFD), the combining diacritical
-- marks (U+0300-U+036F) removed, recomposed (NFC) so that other scripts (Hangul) keep their form. The
-- server folds the search term the same way (crm.queries normaliseSearch). Letters that are not a base
-- letter plus a mark (ø, æ, ß, ł) stay as they are.
--
-- The fold runs only on text holding a non-ASCII character (one regular-expression test otherwise:
-- ~50 ms per 100,000 contacts, against ~1.4 s for normalizing every row).
--
-- normalize() needs a UTF8 database: on any other server encoding (an embedded server initialised under
-- the C locale is SQL_ASCII) contact_search_fold returns its text unchanged and a NOTICE says so.
--
-- Cost: search_text is dropped and added again, which rewrites contacts and rebuilds its trigram index
-- (contacts_ws_search_keys_idx, 0044) with the same definition and statistics settings.
DO $$
BEGIN
  IF current_setting('server_encoding') = 'UTF8' THEN
    CREATE OR REPLACE FUNCTION contact_search_fold(t text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $f$ select case when t ~ '[^\x01-\x7f]' then normalize(regexp_replace(normalize(t, NFD), '[\u0300-\u036f]', '', 'g'), NFC) else t end $f$;
  ELSE
    RAISE NOTICE '0053_contact_search_accents: server encoding is %, not UTF8: contact search stays accent-sensitive', current_setting('server_encoding');
    CREATE OR REPLACE FUNCTION contact_search_fold(t text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $f$ select t $f$;
  END IF;
END $$;--> statement-breakpoint
ALTER TABLE "contacts" DROP COLUMN "search_text";--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower(contact_search_fold(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(company, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(phone_raw, '') || ' ' || coalesce(mobile, '')))) STORED;--> statement-breakpoint
ALTER TABLE "contacts" ALTER COLUMN "search_text" SET STATISTICS 1000;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_ws_search_keys_idx" ON "contacts" USING gin ((contact_search_keys(workspace_id, search_text)) COLLATE "C") WHERE search_indexed;--> statement-breakpoint
ALTER INDEX "contacts_ws_search_keys_idx" ALTER COLUMN 1 SET STATISTICS 0;
