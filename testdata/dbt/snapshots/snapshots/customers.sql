{% snapshot customers_history %}
{{ config(unique_key='id', strategy='check', check_cols='all', hard_deletes='invalidate') }}
select id, name, tier from {{ source('raw', 'customers') }}
{% endsnapshot %}

{% snapshot customers_by_update %}
{{ config(unique_key='id', strategy='timestamp', updated_at='updated_at', invalidate_hard_deletes=true) }}
select * from {{ source('raw', 'customers') }}
{% endsnapshot %}
