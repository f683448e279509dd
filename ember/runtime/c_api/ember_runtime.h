/* ember_runtime.h: run a model exported by ember (export_library / `ember compile`) from C.
 *
 *   EmberModel* m = ember_model_load("model.so");        NULL on error: ember_last_error()
 *   ember_model_set_input(m, 0, &input);                  copies the DLTensor's data
 *   ember_model_run(m);
 *   const DLTensor* y = ember_model_get_output(m, 0);     owned by the model
 *   ember_model_free(m);
 *
 * Every function returns 0 (or a non-NULL pointer) on success; on failure
 * ember_last_error() says what went wrong (argument, expected, got).  A model handle
 * runs one call at a time; load the model twice to run it on two threads.
 */
#ifndef EMBER_RUNTIME_H_
#define EMBER_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLPACK_VERSION /* the DLPack structs, as dlpack.h defines them */
typedef enum { kDLCPU = 1, kDLCUDA = 2 } DLDeviceType;
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 } DLDataTypeCode;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides; /* NULL: compact row-major */
  uint64_t byte_offset;
} DLTensor;
#endif

/* -- what an exported library holds (written by ember's exporter; read by the runtime) -- */
#define EMBER_AOT_ABI_VERSION 1

typedef struct {
  const char* name;
  int32_t ndim;
  const int64_t* shape;
  DLDataType dtype;
} EmberTensorInfo;

typedef struct {
  int32_t abi_version;
  const char* function_name;
  int32_t num_inputs;
  const EmberTensorInfo* inputs;
  int32_t num_outputs;
  const EmberTensorInfo* outputs;
  uint64_t workspace_bytes;
  int32_t num_steps;
  const char* const* step_names;
  /* returns 0, or (index of the failed step) + 1 with the kernel's code in *failed_check */
  int32_t (*run)(void* workspace, DLTensor* const* inputs, DLTensor* const* outputs, int32_t* failed_check);
} EmberAotEntry;

#define EMBER_AOT_ENTRY_SYMBOL "__ember_aot_entry"

/* -- the API ------------------------------------------------------------------------------ */
typedef struct EmberModel EmberModel;

EmberModel* ember_model_load(const char* path);
void ember_model_free(EmberModel* model);
const char* ember_last_error(void);

int ember_model_num_inputs(const EmberModel* model);
int ember_model_num_outputs(const EmberModel* model);
const EmberTensorInfo* ember_model_input_info(const EmberModel* model, int index);
const EmberTensorInfo* ember_model_output_info(const EmberModel* model, int index);
int ember_model_input_index(const EmberModel* model, const char* name); /* -1 if unknown */

int ember_model_set_input(EmberModel* model, int index, const DLTensor* value);
int ember_model_set_input_by_name(EmberModel* model, const char* name, const DLTensor* value);
int ember_model_run(EmberModel* model);
const DLTensor* ember_model_get_output(const EmberModel* model, int index);
int ember_model_copy_output(const EmberModel* model, int index, DLTensor* dst);

#ifdef __cplusplus
}
#endif
#endif /* EMBER_RUNTIME_H_ */
