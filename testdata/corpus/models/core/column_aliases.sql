-- Table aliases with column aliases.
MODEL (
  name core.column_aliases
);

SELECT n.nm, n.rg, count(c.cid) AS customers
FROM @ref(raw.nations) n(id, nm, rg, cur)
LEFT JOIN @ref(raw.customers) AS c(cid, cname, nid) ON c.nid = n.id
GROUP BY n.nm, n.rg
ORDER BY n.nm
