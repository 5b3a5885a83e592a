/*
 * optvalues.h — the GOption callbacks of optvalues.c: --frames,
 * --roce-port, --ulp, --interval, --dscp, --link-speed, --cnp-threshold,
 * --since, --until, --plot-size, --qp, --conn and -C. Each takes its
 * option's argument into the struct rs_cli_opts given as `data`.
 */
#ifndef RS_CLI_OPTVALUES_H
#define RS_CLI_OPTVALUES_H

#include <glib.h>

gboolean rs_opt_frames(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_port(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_ulp(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_interval(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_dscp(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_link_speed(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_cnp_threshold(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_since(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_until(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_plot_size(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_qp(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_conn(const gchar *name, const gchar *arg, gpointer data, GError **err);
gboolean rs_opt_rotate_size(const gchar *name, const gchar *arg, gpointer data, GError **err);

#endif
