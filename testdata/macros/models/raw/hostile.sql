MODEL (
  name raw.hostile,
  kind SEED (path 'seeds/hostile.csv'),
  columns ("Order ID" INTEGER, "a.b" TEXT, "Größe" INTEGER, "select" TEXT, "Mixed Case" TEXT)
);
