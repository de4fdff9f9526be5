-- SYNTAX TEST "source.efmesh" "every kind is a kind, lower case too"
MODEL (name a.full, kind FULL);
--          ^^^^^^ entity.name.model.efmesh
--                       ^^^^ entity.name.type.kind.efmesh
MODEL (name a.v, kind view);
--                    ^^^^ entity.name.type.kind.efmesh
MODEL (name a.k, kind INCREMENTAL_BY_UNIQUE_KEY (key (id)));
--                    ^^^^^^^^^^^^^^^^^^^^^^^^^ entity.name.type.kind.efmesh
--                                               ^^^ variable.parameter.kind-option.efmesh
MODEL (name a.s, kind SCD_TYPE_2 (key (id), valid_from vf));
--                    ^^^^^^^^^^ entity.name.type.kind.efmesh
--                                          ^^^^^^^^^^ variable.parameter.kind-option.efmesh
MODEL (name a.seed, kind SEED (path 'seeds/a.csv'));
--                       ^^^^ entity.name.type.kind.efmesh
--                             ^^^^ variable.parameter.kind-option.efmesh
--                                  ^^^^^^^^^^^^^ string.quoted.single.efmesh
MODEL (name a.x, kind EXTERNAL (files 'd/*.parquet', format parquet));
--                    ^^^^^^^^ entity.name.type.kind.efmesh
--                                                   ^^^^^^ variable.parameter.kind-option.efmesh
MODEL (name a.e, kind EMBEDDED);
--                    ^^^^^^^^ entity.name.type.kind.efmesh
AUDIT (name positive, blocking true);
-- <----- keyword.other.model.efmesh
--                    ^^^^^^^^ support.type.property-name.efmesh
--                             ^^^^ constant.language.boolean.efmesh
SELECT * FROM @this WHERE amount < 0
--            ^^^^^ keyword.control.macro.efmesh
