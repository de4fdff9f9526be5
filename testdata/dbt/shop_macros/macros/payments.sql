{# The payment methods the shop takes. #}
{% macro payment_methods() %}
    {{ return(['credit_card', 'coupon', 'bank_transfer', 'gift_card']) }}
{% endmacro %}

{# One amount column per method, in dollars. #}
{% macro amount_by_method(methods, col='amount') -%}
    {%- for method in methods %}
    sum(case when payment_method = '{{ method }}' then {{ cents_to_dollars(col) }} else 0 end) as {{ method }}_amount
    {%- if not loop.last %},{% endif -%}
    {% endfor %}
{%- endmacro %}

{# The query the caller writes, kept to the rows at or above a floor. #}
{% macro at_least(col, floor=none) -%}
    select * from ({{ caller() }}) as q
    where {{ col }} >= {{ floor if floor is not none else var('min_cents') }}
{%- endmacro %}
