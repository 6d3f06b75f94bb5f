-- Stored large outputs (ot.result): one row per committed output, its
-- text and line index in chunks, tombstones of removed outputs.
CREATE TABLE result_outputs (
    handle     text COLLATE "C" PRIMARY KEY CHECK (handle ~ '^[0-9a-f]{32}$'),
    header     bytea NOT NULL CHECK (octet_length(header) = 64), -- the line index's header
    text_size  bigint NOT NULL CHECK (text_size >= 0),
    index_size bigint NOT NULL CHECK (index_size >= 64),         -- header included
    stored_at  timestamptz NOT NULL DEFAULT now()
);

-- blob 0 is the text, blob 1 the line index after its header; chunk n
-- holds bytes [n*chunk, (n+1)*chunk) of its blob. The chunks are written
-- before their output row, in the same transaction.
CREATE TABLE result_chunks (
    handle text COLLATE "C" NOT NULL REFERENCES result_outputs (handle) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    blob   smallint NOT NULL CHECK (blob IN (0, 1)),
    n      bigint NOT NULL CHECK (n >= 0),
    data   bytea NOT NULL,
    PRIMARY KEY (handle, blob, n)
);
-- Out of line and uncompressed: substring() of a chunk reads only the
-- part it returns.
ALTER TABLE result_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE result_tombstones (
    handle     text COLLATE "C" PRIMARY KEY,
    removed_at timestamptz NOT NULL,
    evicted    boolean NOT NULL
);
CREATE INDEX result_tombstones_removed_at ON result_tombstones (removed_at);
