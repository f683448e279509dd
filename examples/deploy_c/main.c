/* Run an ember-exported model from C.
 *
 *   deploy_c model.so input0.bin [input1.bin ...] output_prefix
 *
 * Each input file holds the raw bytes of one input (row-major, the model's dtype and
 * shape, as numpy's tofile() writes them); output i is written to <output_prefix><i>.bin.
 * Build: cc main.c -I<include_dir> <libember_runtime.so> -ldl  (see build_and_run.py).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ember_runtime.h"

static size_t tensor_bytes(const EmberTensorInfo* info) {
  size_t n = (info->dtype.bits * info->dtype.lanes + 7) / 8;
  for (int d = 0; d < info->ndim; d++) n *= (size_t)info->shape[d];
  return n;
}

static void* read_file(const char* path, size_t expected) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  void* data = malloc(expected ? expected : 1);
  size_t got = fread(data, 1, expected, f);
  fclose(f);
  if (got != expected) {
    fprintf(stderr, "%s: expected %zu bytes, got %zu\n", path, expected, got);
    free(data);
    return NULL;
  }
  return data;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s model.so input0.bin ... output_prefix\n", argv[0]);
    return 2;
  }
  EmberModel* model = ember_model_load(argv[1]);
  if (!model) {
    fprintf(stderr, "error: %s\n", ember_last_error());
    return 1;
  }
  int num_inputs = ember_model_num_inputs(model);
  if (argc != num_inputs + 3) {
    fprintf(stderr, "the model has %d inputs, got %d input files\n", num_inputs, argc - 3);
    ember_model_free(model);
    return 2;
  }
  for (int i = 0; i < num_inputs; i++) {
    const EmberTensorInfo* info = ember_model_input_info(model, i);
    void* data = read_file(argv[2 + i], tensor_bytes(info));
    if (!data) {
      ember_model_free(model);
      return 1;
    }
    DLTensor input = {data, {kDLCPU, 0}, info->ndim, info->dtype, (int64_t*)info->shape, NULL, 0};
    int rc = ember_model_set_input(model, i, &input);
    free(data);
    if (rc != 0) {
      fprintf(stderr, "error: %s\n", ember_last_error());
      ember_model_free(model);
      return 1;
    }
    printf("input %s: %d-d\n", info->name, info->ndim);
  }
  if (ember_model_run(model) != 0) {
    fprintf(stderr, "error: %s\n", ember_last_error());
    ember_model_free(model);
    return 1;
  }
  for (int i = 0; i < ember_model_num_outputs(model); i++) {
    const DLTensor* out = ember_model_get_output(model, i);
    char path[4096];
    snprintf(path, sizeof(path), "%s%d.bin", argv[argc - 1], i);
    FILE* f = fopen(path, "wb");
    if (!f) {
      fprintf(stderr, "cannot write %s\n", path);
      ember_model_free(model);
      return 1;
    }
    fwrite(out->data, 1, tensor_bytes(ember_model_output_info(model, i)), f);
    fclose(f);
    printf("output %d written to %s\n", i, path);
  }
  ember_model_free(model);
  return 0;
}
