{% snapshot prices %}
{{
    config(
      target_schema='history',
      unique_key='sku',
      strategy='check',
      check_cols=['price'],
    )
}}
select sku, name, price from {{ source('raw', 'products') }}
{% endsnapshot %}
