select * from {{ ref('no_such_model') }}
