-- When each bundle took its slug in this catalogue (catalogue.Bundle's
-- SlugSince), set by the store: among bundles sharing a slug, the one
-- holding it longest keeps the plain registry name. Rows written before
-- have none; they read as the time of their id (catalogue.IDTime).
ALTER TABLE catalogue_bundles ADD COLUMN slug_since timestamptz;

---- create above / drop below ----

ALTER TABLE catalogue_bundles DROP COLUMN slug_since;
