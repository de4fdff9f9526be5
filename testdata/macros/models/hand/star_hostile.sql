MODEL (name hand.star_hostile, kind FULL);

SELECT "Order ID" AS "h Order ID", "Größe" AS "h Größe", "select" AS "h select", "Mixed Case" AS "h Mixed Case" FROM @ref(raw.hostile)
