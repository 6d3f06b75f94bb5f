-- The catalogue: bundles and their tool versions. Text compares byte by
-- byte (COLLATE "C") so that the store's order is the same on every host.
CREATE TABLE catalogue_bundles (
    id              uuid PRIMARY KEY,
    slug            text COLLATE "C" NOT NULL,
    display_name    text NOT NULL,
    description     text NOT NULL,
    is_enabled      boolean NOT NULL,
    built_in        boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    modified_at     timestamptz NOT NULL,
    soft_deleted_at timestamptz
);

CREATE TABLE catalogue_tools (
    bundle_id      uuid NOT NULL REFERENCES catalogue_bundles (id),
    slug           text COLLATE "C" NOT NULL,
    version        text COLLATE "C" NOT NULL,
    id             uuid NOT NULL UNIQUE,
    spec           json NOT NULL, -- the ToolSpec as written (json keeps it byte for byte)
    tags           text[] NOT NULL DEFAULT '{}',
    is_enabled     boolean NOT NULL,
    built_in       boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL,
    modified_at    timestamptz NOT NULL,
    last_called_at timestamptz,
    call_count     bigint NOT NULL DEFAULT 0 CHECK (call_count >= 0),
    PRIMARY KEY (bundle_id, slug, version) -- <slug, version> unique in a bundle, and the list order
);

CREATE INDEX catalogue_bundles_soft_deleted ON catalogue_bundles (soft_deleted_at) WHERE soft_deleted_at IS NOT NULL;

---- create above / drop below ----

DROP TABLE catalogue_tools;
DROP TABLE catalogue_bundles;
