-- SYNTAX TEST "source.efmesh" "an efmesh model: header, kind options, macros"
MODEL (
-- <----- keyword.other.model.efmesh
--    ^ punctuation.section.header.begin.efmesh
  name mart.daily,
--^^^^ support.type.property-name.efmesh
--     ^^^^^^^^^^ entity.name.model.efmesh
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 7),
--^^^^ support.type.property-name.efmesh
--     ^^^^^^^^^^^^^^^^^^^^^^^^^ entity.name.type.kind.efmesh
--                                ^^^^^^^^^^^ variable.parameter.kind-option.efmesh
--                                                 ^^^^^^^^^^ variable.parameter.kind-option.efmesh
--                                                            ^ constant.numeric.efmesh
  interval day, -- one row per day
--^^^^^^^^ support.type.property-name.efmesh
--              ^^^^^^^^^^^^^^^^^^ comment.line.double-dash.efmesh
  start '2026-01-01',
--^^^^^ support.type.property-name.efmesh
--      ^^^^^^^^^^^^ string.quoted.single.efmesh
  columns (customer TEXT, "Umsatz €" DOUBLE, day DATE),
--^^^^^^^ support.type.property-name.efmesh
--                  ^^^^ storage.type.efmesh
--                        ^^^^^^^^^^ variable.other.quoted.efmesh
  audits (not_null(customer), unique(customer, day)),
--^^^^^^ support.type.property-name.efmesh
--        ^^^^^^^^ entity.name.function.audit.efmesh
  description 'Revenue per customer and day'
--^^^^^^^^^^^ support.type.property-name.efmesh
);
-- <- punctuation.section.header.end.efmesh
-- <~- punctuation.terminator.header.efmesh

SELECT customer, sum(amount) AS "Umsatz €", @var(region) AS region
--                                          ^^^^ keyword.control.macro.var.efmesh
--                                               ^^^^^^ variable.other.constant.efmesh
FROM @ref(raw.orders) AS o
--   ^^^^ keyword.control.macro.ref.efmesh
--       ^ punctuation.section.macro.begin.efmesh
--        ^^^^^^^^^^ entity.name.model.efmesh
--                  ^ punctuation.section.macro.end.efmesh
WHERE o.ordered_at >= @start AND o.ordered_at < @end
--                    ^^^^^^ keyword.control.macro.efmesh
--                                              ^^^^ keyword.control.macro.efmesh
