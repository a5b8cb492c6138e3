/**
 * The team store's schema in PostgreSQL, as numbered migrations: each one runs once, in its own
 * transaction, and `retained_schema` records the last that ran, so `retained migrate` is
 * idempotent and an older store is brought up to date. Two group roles come with it:
 * `retained_writer` adds runs, events and values and deletes nothing; `retained_reader` reads
 * everything but the withheld originals. An administrator grants them to login roles.
 *
 * Values are content-addressed: a `blob` is one text by its SHA-256, stored once for the whole
 * team in chunks of at most 1 MiB, each with the line it starts at, so a peek reads only the
 * chunks its lines are in. A blob is visible to values only when `complete`: a writer killed
 * halfway leaves nothing a stub can point to. Since version 3 no writer writes a blob: it uploads
 * its chunks and `retained_finish_blob` checks them (order, lines, size, SHA-256) before making
 * them the blob, so no teammate can put other bytes under a hash, hide a blob, or add to one.
 * Since version 4 each login keeps its own index of each run it opened (`run_indexes`). Since
 * version 5 a value of a few chunks goes to that function with its call, and events are appended
 * by `retained_append`, so a retain is one transaction of a few statements.
 */

import { INDEX_MAX_BYTES } from '../runStore';

/** The roles the schema grants; their names are the interface an administrator uses. */
export const WRITER_ROLE = 'retained_writer';
export const READER_ROLE = 'retained_reader';

/** The most bytes one chunk of a value holds. */
export const CHUNK_MAX_BYTES = 1 << 20;

export interface Migration {
  version: number;
  what: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    what: 'runs, events, values in content-addressed chunks, withheld originals, audit, and the two roles',
    sql: `
      CREATE TABLE runs (
        run_id text PRIMARY KEY CHECK (length(run_id) BETWEEN 1 AND 200),
        name text NOT NULL,
        started_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        pinned boolean NOT NULL DEFAULT false
      );
      CREATE TABLE events (
        run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
        seq bigint NOT NULL CHECK (seq >= 0),
        -- json, not jsonb: an event comes back as it went in, its keys in their order.
        event json NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE blobs (
        sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        bytes bigint NOT NULL CHECK (bytes >= 0),
        lines bigint NOT NULL CHECK (lines >= 0),
        complete boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE blob_chunks (
        sha256 text NOT NULL REFERENCES blobs ON DELETE CASCADE,
        n integer NOT NULL CHECK (n >= 0),
        first_line bigint NOT NULL CHECK (first_line >= 1),
        data bytea NOT NULL CHECK (length(data) <= ${CHUNK_MAX_BYTES}),
        PRIMARY KEY (sha256, n)
      );
      CREATE INDEX blob_chunks_by_line ON blob_chunks (sha256, first_line);
      -- Chunks are stored as they are, not compressed: written at the rate they come, and a part
      -- of one (a peek's lines) read without inflating the whole chunk.
      ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE TABLE run_values (
        run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
        value_id text NOT NULL CHECK (length(value_id) BETWEEN 1 AND 200),
        sha256 text NOT NULL REFERENCES blobs,
        meta jsonb NOT NULL,
        PRIMARY KEY (run_id, value_id)
      );
      CREATE TABLE withheld (
        name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200),
        run_id text,
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE audit (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        entry jsonb NOT NULL
      );

      DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${WRITER_ROLE}') THEN CREATE ROLE ${WRITER_ROLE} NOLOGIN; END IF;
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${READER_ROLE}') THEN CREATE ROLE ${READER_ROLE} NOLOGIN; END IF;
      END $$;
      GRANT SELECT ON retained_schema TO ${READER_ROLE}, ${WRITER_ROLE};
      GRANT SELECT ON runs, events, blobs, blob_chunks, run_values, audit TO ${READER_ROLE};
      GRANT SELECT, INSERT ON runs, events, blobs, blob_chunks, run_values, audit TO ${WRITER_ROLE};
      -- A writer adds withheld originals; it reads none back.
      GRANT INSERT ON withheld TO ${WRITER_ROLE};
      -- A writer finishes a blob it wrote (complete), and pins a run; it deletes nothing.
      GRANT UPDATE (complete) ON blobs TO ${WRITER_ROLE};
      GRANT UPDATE (pinned) ON runs TO ${WRITER_ROLE};
      GRANT USAGE ON SEQUENCE audit_id_seq TO ${WRITER_ROLE};
    `,
  },
  {
    version: 2,
    what: "a value's whole line index beside its blob, and when each event came",
    sql: `
      -- The index staging built, so a peek seeks near its line (a blob without one is read by its chunks' first lines).
      ALTER TABLE blobs ADD COLUMN line_index bytea;
      ALTER TABLE events ADD COLUMN at timestamptz NOT NULL DEFAULT now();
    `,
  },
  {
    version: 3,
    what: 'blobs made complete only by a function that checks their hash: no writer writes blobs or their chunks',
    sql: `
      -- A writer's chunks go here first, in its own transaction, named by an upload id of its own;
      -- a row is always its login's own (a writer cannot add to another's upload).
      CREATE TABLE blob_uploads (
        upload uuid NOT NULL,
        owner name NOT NULL DEFAULT session_user CHECK (owner = session_user),
        n integer NOT NULL CHECK (n >= 0),
        first_line bigint NOT NULL CHECK (first_line >= 1),
        data bytea NOT NULL CHECK (length(data) <= ${CHUNK_MAX_BYTES}),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (upload, n)
      );
      ALTER TABLE blob_uploads ALTER COLUMN data SET STORAGE EXTERNAL;
      REVOKE INSERT, UPDATE ON blobs, blob_chunks FROM ${WRITER_ROLE};
      GRANT INSERT ON blob_uploads TO ${WRITER_ROLE};

      -- Finishes an upload as the blob of that SHA-256: its chunks in order from 0, each starting at
      -- the line the ones before end on, hashing to the name, of the bytes said. Then, at once, the
      -- blob and its chunks are written and complete: no one can write them after (no grant). A blob
      -- the team has complete already is kept as it is. Its line index is the chunks' own (a
      -- writer's index is not taken: nothing here could check it). True when this upload made it.
      CREATE FUNCTION retained_finish_blob(p_upload uuid, p_sha256 text, p_bytes bigint)
        RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $f$
      DECLARE
        chunk record;
        expect integer := 0;
        line bigint := 1;
        total bigint := 0;
        text_of text;
        digest text;
      BEGIN
        IF p_sha256 !~ '^[0-9a-f]{64}$' THEN RAISE EXCEPTION 'not a SHA-256: %', p_sha256; END IF;
        PERFORM pg_advisory_xact_lock(hashtextextended(p_sha256, 0));
        IF EXISTS (SELECT 1 FROM blobs WHERE sha256 = p_sha256 AND complete) THEN
          DELETE FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
          RETURN false;
        END IF;
        FOR chunk IN SELECT n, first_line, data FROM blob_uploads
                     WHERE upload = p_upload AND owner = session_user ORDER BY n LOOP
          IF chunk.n <> expect OR chunk.first_line <> line THEN
            RAISE EXCEPTION 'upload of %: chunk % is not where chunk % starts (line %)', p_sha256, chunk.n, expect, line;
          END IF;
          -- Newlines counted on the escaped text, where a newline stays one byte.
          text_of := encode(chunk.data, 'escape');
          line := line + length(text_of) - length(replace(text_of, E'\n', ''));
          total := total + length(chunk.data);
          expect := expect + 1;
        END LOOP;
        IF total <> p_bytes THEN
          RAISE EXCEPTION 'upload of %: % bytes, not %', p_sha256, total, p_bytes;
        END IF;
        SELECT encode(sha256(coalesce(string_agg(data, ''::bytea ORDER BY n), ''::bytea)), 'hex') INTO digest
          FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
        IF digest <> p_sha256 THEN
          RAISE EXCEPTION 'upload of %: its bytes hash to %', p_sha256, digest;
        END IF;
        -- A blob row no upload finished (an older writer's, killed) gives way to this one.
        DELETE FROM blob_chunks WHERE sha256 = p_sha256;
        INSERT INTO blobs (sha256, bytes, lines, complete, line_index)
          VALUES (p_sha256, p_bytes,
                  CASE WHEN p_bytes = 0 THEN 0
                       WHEN (SELECT get_byte(data, length(data) - 1) FROM blob_uploads
                             WHERE upload = p_upload AND owner = session_user ORDER BY n DESC LIMIT 1) = 10
                       THEN line - 1 ELSE line END,
                  true, NULL)
          ON CONFLICT (sha256) DO UPDATE SET bytes = EXCLUDED.bytes, lines = EXCLUDED.lines, complete = true, line_index = NULL;
        INSERT INTO blob_chunks (sha256, n, first_line, data)
          SELECT p_sha256, n, first_line, data FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
        DELETE FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
        RETURN true;
      END
      $f$;
      REVOKE ALL ON FUNCTION retained_finish_blob(uuid, text, bigint) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION retained_finish_blob(uuid, text, bigint) TO ${WRITER_ROLE};
    `,
  },
  {
    version: 4,
    what: "the inspector's index of each run, one per login",
    sql: `
      -- Derived data (inspection/runIndex.ts), so a cold open reads one row instead of every event.
      -- An index is what its reader trusts, so each login keeps its own and sees no one else's.
      CREATE TABLE run_indexes (
        run_id text NOT NULL REFERENCES runs ON DELETE CASCADE,
        owner name NOT NULL DEFAULT session_user CHECK (owner = session_user),
        body text NOT NULL CHECK (octet_length(body) <= ${INDEX_MAX_BYTES}),
        at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, owner)
      );
      ALTER TABLE run_indexes ENABLE ROW LEVEL SECURITY;
      CREATE POLICY run_indexes_own ON run_indexes USING (owner = session_user) WITH CHECK (owner = session_user);
      GRANT SELECT, INSERT, UPDATE, DELETE ON run_indexes TO ${READER_ROLE}, ${WRITER_ROLE};
    `,
  },
  {
    version: 5,
    what: 'a retain in one transaction of few statements: the last chunks given to the function that finishes a blob, events appended by a function',
    sql: `
      -- As version 3's, and the last chunks given here rather than uploaded first (\`p_tail\`, their
      -- bytes one after another, with each one's size and first line): a value of a few chunks is
      -- written once, not uploaded and then copied. Newlines are counted in bytes, not characters.
      DROP FUNCTION retained_finish_blob(uuid, text, bigint);
      CREATE FUNCTION retained_finish_blob(p_upload uuid, p_sha256 text, p_bytes bigint, p_tail bytea DEFAULT '',
                                           p_tail_sizes integer[] DEFAULT '{}', p_tail_lines bigint[] DEFAULT '{}')
        RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $f$
      DECLARE
        chunk record;
        uploaded integer := 0;
        line bigint := 1;
        total bigint := 0;
        at integer := 1;
        part bytea;
        text_of text;
        last bytea;
        digest text;
      BEGIN
        IF p_sha256 !~ '^[0-9a-f]{64}$' THEN RAISE EXCEPTION 'not a SHA-256: %', p_sha256; END IF;
        IF p_tail IS NULL OR p_tail_sizes IS NULL OR p_tail_lines IS NULL
           OR cardinality(p_tail_sizes) <> cardinality(p_tail_lines)
           OR (SELECT coalesce(sum(size), 0) FROM unnest(p_tail_sizes) AS size) <> octet_length(p_tail)
           OR EXISTS (SELECT 1 FROM unnest(p_tail_sizes) AS size WHERE size IS NULL OR size < 1 OR size > ${CHUNK_MAX_BYTES}) THEN
          RAISE EXCEPTION 'upload of %: the last chunks are not the sizes said', p_sha256;
        END IF;
        PERFORM pg_advisory_xact_lock(hashtextextended(p_sha256, 0));
        IF EXISTS (SELECT 1 FROM blobs WHERE sha256 = p_sha256 AND complete) THEN
          DELETE FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
          RETURN false;
        END IF;
        FOR chunk IN SELECT n, first_line, data FROM blob_uploads
                     WHERE upload = p_upload AND owner = session_user ORDER BY n LOOP
          IF chunk.n <> uploaded OR chunk.first_line <> line THEN
            RAISE EXCEPTION 'upload of %: chunk % is not where chunk % starts (line %)', p_sha256, chunk.n, uploaded, line;
          END IF;
          -- Newlines counted on the escaped text, where a newline stays one byte.
          text_of := encode(chunk.data, 'escape');
          line := line + octet_length(text_of) - octet_length(replace(text_of, E'\n', ''));
          total := total + octet_length(chunk.data);
          uploaded := uploaded + 1;
          last := chunk.data;
        END LOOP;
        FOR i IN 1 .. cardinality(p_tail_sizes) LOOP
          IF p_tail_lines[i] IS DISTINCT FROM line THEN
            RAISE EXCEPTION 'upload of %: chunk % is not where chunk % starts (line %)', p_sha256, uploaded + i - 1, uploaded + i - 1, line;
          END IF;
          part := substring(p_tail FROM at FOR p_tail_sizes[i]);
          text_of := encode(part, 'escape');
          line := line + octet_length(text_of) - octet_length(replace(text_of, E'\n', ''));
          at := at + p_tail_sizes[i];
          last := part;
        END LOOP;
        total := total + octet_length(p_tail);
        IF total <> p_bytes THEN
          RAISE EXCEPTION 'upload of %: % bytes, not %', p_sha256, total, p_bytes;
        END IF;
        IF uploaded = 0 THEN
          digest := encode(sha256(p_tail), 'hex');
        ELSE
          SELECT encode(sha256(string_agg(data, ''::bytea ORDER BY n) || p_tail), 'hex') INTO digest
            FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
        END IF;
        IF digest <> p_sha256 THEN
          RAISE EXCEPTION 'upload of %: its bytes hash to %', p_sha256, digest;
        END IF;
        -- A blob row no upload finished (an older writer's, killed) gives way to this one.
        DELETE FROM blob_chunks WHERE sha256 = p_sha256;
        INSERT INTO blobs (sha256, bytes, lines, complete, line_index)
          VALUES (p_sha256, p_bytes,
                  CASE WHEN p_bytes = 0 THEN 0 WHEN get_byte(last, octet_length(last) - 1) = 10 THEN line - 1 ELSE line END,
                  true, NULL)
          ON CONFLICT (sha256) DO UPDATE SET bytes = EXCLUDED.bytes, lines = EXCLUDED.lines, complete = true, line_index = NULL;
        IF uploaded > 0 THEN
          INSERT INTO blob_chunks (sha256, n, first_line, data)
            SELECT p_sha256, n, first_line, data FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
          DELETE FROM blob_uploads WHERE upload = p_upload AND owner = session_user;
        END IF;
        at := 1;
        FOR i IN 1 .. cardinality(p_tail_sizes) LOOP
          INSERT INTO blob_chunks (sha256, n, first_line, data)
            VALUES (p_sha256, uploaded + i - 1, p_tail_lines[i], substring(p_tail FROM at FOR p_tail_sizes[i]));
          at := at + p_tail_sizes[i];
        END LOOP;
        RETURN true;
      END
      $f$;
      REVOKE ALL ON FUNCTION retained_finish_blob(uuid, text, bigint, bytea, integer[], bigint[]) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION retained_finish_blob(uuid, text, bigint, bytea, integer[], bigint[]) TO ${WRITER_ROLE};

      -- Appends events (a JSON array, each element kept as its text) to a run after its last,
      -- holding the run's lock to the commit; returns the first one's number. One statement,
      -- so the lock is held for it and the commit alone. The caller's own grants apply.
      CREATE FUNCTION retained_append(p_run text, p_events json)
        RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $f$
      DECLARE
        first_seq bigint;
      BEGIN
        INSERT INTO runs (run_id, name) VALUES (p_run, p_run) ON CONFLICT DO NOTHING;
        PERFORM pg_advisory_xact_lock(hashtextextended(p_run, 0));
        -- A statement of its own after the lock: it sees every event committed before it.
        SELECT coalesce(max(seq) + 1, 0) INTO first_seq FROM events WHERE run_id = p_run;
        INSERT INTO events (run_id, seq, event)
          SELECT p_run, first_seq + t.i - 1, t.event FROM json_array_elements(p_events) WITH ORDINALITY AS t(event, i);
        RETURN first_seq;
      END
      $f$;
      REVOKE ALL ON FUNCTION retained_append(text, json) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION retained_append(text, json) TO ${WRITER_ROLE};
    `,
  },
];

/** The channel a team store's writers notify, with the run's id: every watching client refreshes that run. */
export const CHANGES_CHANNEL = 'retained_changes';

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
