MODEL (name mart.daily_kpis, kind VIEW);

SELECT day, orders, revenue,
       sum(orders) OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS orders_7d,
       avg(revenue) OVER (ORDER BY day RANGE BETWEEN INTERVAL '6 days' PRECEDING AND CURRENT ROW) AS revenue_avg_7d,
       first_value(day) OVER (PARTITION BY date_trunc('month', day) ORDER BY day) AS month_start
FROM @ref(core.daily_orders)
