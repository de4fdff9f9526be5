MODEL (name core.columns_star, kind FULL);

SELECT COLUMNS(*)::VARCHAR FROM @ref(raw.cities)
