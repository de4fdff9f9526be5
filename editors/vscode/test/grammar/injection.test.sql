-- SYNTAX TEST "source.sql" "a .sql file under VS Code's SQL grammar: the header and macros are injected"
MODEL (name mart.top, kind VIEW);
-- <----- keyword.other.model.efmesh
--     ^^^^ support.type.property-name.efmesh
--          ^^^^^^^^ entity.name.model.efmesh
--                         ^^^^ entity.name.type.kind.efmesh

SELECT t.customer, 'no @ref(x.y) in a string' AS note -- nor @start in a comment
-- <------ keyword.other.DML.sql
--                 ^^^^^^^^^^^^^^^^^^^^^^^^^^ string.quoted.single.sql
--                     ^^^^ - keyword.control.macro.ref.efmesh
--                                                                  ^^^^^^ comment.line.double-dash.sql
--                                                                  ^^^^^^ - keyword.control.macro.efmesh
FROM @ref(mart.revenue) AS t
-- <---- keyword.other.DML.sql
--   ^^^^ keyword.control.macro.ref.efmesh
--        ^^^^^^^^^^^^ entity.name.model.efmesh
WHERE t.day >= @start
--             ^^^^^^ keyword.control.macro.efmesh
