MODEL (name core.from_only, kind VIEW);

FROM @ref(raw.edges)
