// SPDX-License-Identifier: GPL-2.0
/*
 * The babeltrace2 plugin "ketw": the source component class
 * source.ketw.file, which reads .ketw trace files through libketw.
 *
 *   babeltrace2 --plugin-path DIR trace.ketw          (from the build tree)
 *   babeltrace2 trace.ketw                            (installed)
 *   babeltrace2 trace.ketw --output-format=ctf --output DIR
 *
 * The component takes "inputs" (an array of paths: babeltrace2 convert
 * gives each file its own component); each file becomes a trace with a
 * stream and an output port per CPU that has records ("cpuN", or
 * "FILE:cpuN" with several inputs). It answers the support-info query
 * for files starting with ketw's magic, in either byte order, so that
 * babeltrace2 picks it for them with no option.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ketw_bt.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(ketw);
BT_PLUGIN_DESCRIPTION("ketw trace files (.ketw)");
BT_PLUGIN_LICENSE("GPL-2.0");

/* What a component holds: its traces and its ports' data. */
struct ktbt_comp {
	struct ktbt_trace *traces;
	unsigned int nr_traces;
	struct ktbt_port *ports;
	unsigned int nr_ports;
};

static void comp_free(struct ktbt_comp *k)
{
	unsigned int i;

	if (!k)
		return;
	for (i = 0; i < k->nr_traces; i++)
		ktbt_trace_close(&k->traces[i]);
	free(k->traces);
	free(k->ports);
	free(k);
}

static bt_component_class_initialize_method_status
comp_fail(bt_self_component *self, struct ktbt_comp *k, bool nomem,
	  const char *fmt, const char *a, const char *b)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, fmt, a, b);
	comp_free(k);
	return nomem ? BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
		       BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

/* The paths of "inputs" (an array of strings); NULL if it is not one. */
static const bt_value *comp_inputs(const bt_value *params)
{
	const bt_value *in;
	uint64_t i, n;

	if (!params || !bt_value_is_map(params))
		return NULL;
	in = bt_value_map_borrow_entry_value_const(params, "inputs");
	if (!in || !bt_value_is_array(in))
		return NULL;
	n = bt_value_array_get_length(in);
	if (!n)
		return NULL;
	for (i = 0; i < n; i++)
		if (!bt_value_is_string(
			bt_value_array_borrow_element_by_index_const(in, i)))
			return NULL;
	return in;
}

static bt_component_class_initialize_method_status
comp_init(bt_self_component_source *self_src,
	  bt_self_component_source_configuration *config,
	  const bt_value *params, void *init_data)
{
	bt_self_component *self =
		bt_self_component_source_as_self_component(self_src);
	const bt_value *inputs = comp_inputs(params);
	struct ktbt_comp *k;
	unsigned int i, cpu, nr_cpus, p;
	char name[4096];
	int err;

	(void)config;
	(void)init_data;
	if (!inputs)
		return comp_fail(self, NULL, false,
				 "%s%s: the \"inputs\" parameter must be a non-empty array of paths",
				 "source.ketw.file", "");
	k = calloc(1, sizeof(*k));
	if (!k)
		return comp_fail(self, NULL, true, "%s%s", "out of memory", "");
	k->nr_traces = (unsigned int)bt_value_array_get_length(inputs);
	k->traces = calloc(k->nr_traces, sizeof(*k->traces));
	if (!k->traces)
		return comp_fail(self, k, true, "%s%s", "out of memory", "");
	for (i = 0; i < k->nr_traces; i++) {
		const char *path = bt_value_string_get(
			bt_value_array_borrow_element_by_index_const(inputs, i));

		err = ktbt_trace_open(&k->traces[i], path, self);
		if (err)
			return comp_fail(self, k, err == -ENOMEM,
					 "cannot read %s: %s", path,
					 k->traces[i].err);
		k->nr_ports += ketw_input_nr_cpus(k->traces[i].in);
	}
	k->ports = calloc(k->nr_ports ? k->nr_ports : 1, sizeof(*k->ports));
	if (!k->ports)
		return comp_fail(self, k, true, "%s%s", "out of memory", "");
	for (i = 0, p = 0; i < k->nr_traces; i++) {
		struct ktbt_trace *t = &k->traces[i];

		nr_cpus = ketw_input_nr_cpus(t->in);
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			if (!t->streams[cpu])
				continue;
			k->ports[p].t = t;
			k->ports[p].cpu = cpu;
			if (k->nr_traces == 1)
				snprintf(name, sizeof(name), "cpu%u", cpu);
			else
				snprintf(name, sizeof(name), "%s:cpu%u",
					 t->path, cpu);
			if (bt_self_component_source_add_output_port(self_src,
					name, &k->ports[p], NULL) !=
			    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
				return comp_fail(self, k, true,
						 "%s: cannot add port %s",
						 t->path, name);
			p++;
		}
	}
	bt_self_component_set_data(self, k);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void comp_finalize(bt_self_component_source *self_src)
{
	comp_free(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_src)));
}

/*
 * babeltrace.support-info: weight 1 for a file that starts with ketw's
 * magic in either byte order and says major version 1; 0 otherwise.
 */
static double support_weight(const char *type, const char *input)
{
	unsigned char b[8];
	uint32_t magic;
	uint16_t major;
	size_t n;
	FILE *f;

	if (!type || !input || strcmp(type, "file"))
		return 0.0;
	f = fopen(input, "rb");
	if (!f)
		return 0.0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n < sizeof(b))
		return 0.0;
	memcpy(&magic, b, 4);
	memcpy(&major, b + 4, 2);
	if (magic == KETW_FILE_MAGIC)
		return major == KETW_FILE_VERSION_MAJOR ? 1.0 : 0.0;
	if (magic == __builtin_bswap32(KETW_FILE_MAGIC))
		return __builtin_bswap16(major) == KETW_FILE_VERSION_MAJOR ?
		       1.0 : 0.0;
	return 0.0;
}

static bt_component_class_query_method_status
comp_query(bt_self_component_class_source *cls, bt_private_query_executor *qe,
	   const char *object, const bt_value *params, void *method_data,
	   const bt_value **result)
{
	const bt_value *type = NULL, *input = NULL;

	(void)cls;
	(void)qe;
	(void)method_data;
	if (strcmp(object, "babeltrace.support-info"))
		return BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_UNKNOWN_OBJECT;
	if (params && bt_value_is_map(params)) {
		type = bt_value_map_borrow_entry_value_const(params, "type");
		input = bt_value_map_borrow_entry_value_const(params, "input");
	}
	*result = bt_value_real_create_init(support_weight(
		type && bt_value_is_string(type) ? bt_value_string_get(type) : NULL,
		input && bt_value_is_string(input) ?
			bt_value_string_get(input) : NULL));
	return *result ? BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_OK :
			 BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_MEMORY_ERROR;
}

BT_PLUGIN_SOURCE_COMPONENT_CLASS(file, ktbt_iter_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(file,
	"Read ketw trace files (.ketw): a stream per CPU, losses as discarded events.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(file,
	"Parameter: inputs (array of strings): the .ketw files to read.\n"
	"Each file is a trace with a stream and an output port per CPU.\n"
	"See ketw's Documentation/ketw-viewers.rst.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(file, comp_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(file, comp_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_QUERY_METHOD(file, comp_query);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(file,
	ktbt_iter_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(file,
	ktbt_iter_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(file,
	ktbt_iter_seek_beginning, ktbt_iter_can_seek_beginning);
