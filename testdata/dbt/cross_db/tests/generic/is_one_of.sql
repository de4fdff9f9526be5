{% test is_one_of(model, column_name, values) %}
select {{ column_name }}
from {{ model }}
where {{ column_name }} not in ({% for v in values %}'{{ v }}'{% if not loop.last %}, {% endif %}{% endfor %})
{% endtest %}
