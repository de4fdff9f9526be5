{# Cents as dollars, rounded to scale places. #}
{% macro cents_to_dollars(column_name, scale=2) -%}
    {{ return(adapter.dispatch('cents_to_dollars')(column_name, scale)) }}
{%- endmacro %}

{% macro default__cents_to_dollars(column_name, scale) -%}
    round(cast({{ column_name }} as decimal(16, 4)) / 100, {{ scale }})
{%- endmacro %}

{% macro bigquery__cents_to_dollars(column_name, scale) %}
    round(cast(({{ column_name }} / 100) as numeric), {{ scale }})
{% endmacro %}
