-- SYNTAX TEST "source.efmesh" "the model grammar: the body is SQL"
MODEL (name mart.top, kind VIEW);

SELECT count(*) AS n, 'text' AS s FROM @ref(mart.revenue)
-- <------ source.efmesh keyword.other.DML.sql
--                    ^^^^^^ string.quoted.single.sql
--                                     ^^^^ keyword.control.macro.ref.efmesh
