-- Email addresses in Unicode NFC (RFC 6532 section 3.1): "josé@" written with a precomposed "é"
-- (U+00E9) and with "e" + a combining acute accent (U+0065 U+0301) is one mailbox, but the unique
-- indexes contacts_user_email_uq (workspace_id, lower(email)) and users_email_lower_uq (lower(email))
-- compare the stored text, so a CSV holding both forms made two contacts. The server now stores every
-- address in NFC (lib/email normaliseContactEmail, the zod email schemas' .normalize("NFC")); this puts
-- the rows stored before in NFC too.
--
-- Rows whose NFC form would collide with another row are LEFT AS THEY ARE (nothing is deleted or
-- merged; a person can merge or delete the duplicate contact): a contact whose NFC address another
-- contact of the same workspace already has, an account whose NFC address another account has, a
-- pending invitation whose NFC address another pending invitation of the workspace has. When several
-- un-normalized rows share one NFC form and none holds it yet, the oldest (contacts: lowest id;
-- accounts: earliest created_at) is normalized and the others are left.
--
-- Cost: one sequential read of each table with an `IS NOT NFC NORMALIZED` test (an ASCII address
-- passes Postgres's quick check), and updates of the few rows that are not in NFC; each collision
-- check is a probe of the table's lower(email) index.
--
-- normalize() and IS NORMALIZED need a UTF8 database: on any other server encoding (an embedded
-- server initialised under the C locale is SQL_ASCII) nothing is changed and a NOTICE says so; the
-- application stores new addresses in NFC either way.
DO $$
BEGIN
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE NOTICE '0052_email_nfc: server encoding is %, not UTF8: stored email addresses left as they are', current_setting('server_encoding');
    RETURN;
  END IF;

  -- contacts: per workspace, compared as the unique index compares them (lower(email))
  WITH candidate AS (
    SELECT id, workspace_id, normalize(email, NFC) AS nfc
    FROM contacts
    WHERE email IS NOT NFC NORMALIZED
  ), first_of_key AS (
    SELECT DISTINCT ON (workspace_id, lower(nfc)) id, workspace_id, nfc
    FROM candidate
    ORDER BY workspace_id, lower(nfc), id
  )
  UPDATE contacts c
  SET email = f.nfc
  FROM first_of_key f
  WHERE c.id = f.id
    AND NOT EXISTS (
      SELECT 1 FROM contacts o
      WHERE o.workspace_id = f.workspace_id AND lower(o.email) = lower(f.nfc) AND o.id <> f.id
    );

  -- accounts: across all users (users_email_lower_uq)
  WITH candidate AS (
    SELECT id, created_at, normalize(email, NFC) AS nfc
    FROM users
    WHERE email IS NOT NFC NORMALIZED
  ), first_of_key AS (
    SELECT DISTINCT ON (lower(nfc)) id, nfc
    FROM candidate
    ORDER BY lower(nfc), created_at, id
  )
  UPDATE users u
  SET email = f.nfc
  FROM first_of_key f
  WHERE u.id = f.id
    AND NOT EXISTS (SELECT 1 FROM users o WHERE lower(o.email) = lower(f.nfc) AND o.id <> f.id);

  -- invitations: no unique index; a pending one (not accepted, not revoked) is left when another
  -- pending invitation of its workspace has its NFC address, so no address gets two pending invitations
  UPDATE workspace_invites i
  SET email = normalize(i.email, NFC)
  WHERE i.email IS NOT NFC NORMALIZED
    AND NOT (
      i.accepted_at IS NULL AND i.revoked_at IS NULL
      AND EXISTS (
        SELECT 1 FROM workspace_invites o
        WHERE o.workspace_id = i.workspace_id AND o.id <> i.id
          AND o.accepted_at IS NULL AND o.revoked_at IS NULL
          AND lower(normalize(o.email, NFC)) = lower(normalize(i.email, NFC))
      )
    );

  -- account links (verification, password reset, email recovery): no unique index; a link whose
  -- address is, as stored, its account's current address is left when that account was left above
  -- (it still matches it); the others follow the accounts into NFC
  UPDATE auth_tokens t
  SET email = normalize(t.email, NFC)
  WHERE t.email IS NOT NFC NORMALIZED
    AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id AND lower(u.email) = lower(t.email));
END
$$;
