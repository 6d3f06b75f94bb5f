-- The key signing the catalogue API's page tokens
-- (catalogue.PageTokenKeeper): made by the first host that asks, read by
-- every other, so that a page token one host returned is accepted by all
-- of them and after a restart. One row.
CREATE TABLE catalogue_page_token_key (
    id  smallint PRIMARY KEY CHECK (id = 1),
    key bytea NOT NULL CHECK (octet_length(key) >= 32)
);

---- create above / drop below ----

DROP TABLE catalogue_page_token_key;
