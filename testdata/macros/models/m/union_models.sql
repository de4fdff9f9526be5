-- @UNION without a type (ALL by default) of three models built by
-- this project, one of them twice.
MODEL (name m.union_models, kind FULL);

@UNION(@ref(m.star_plain), @ref(hand.star_plain), @ref(m.def_values))
