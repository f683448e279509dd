/* ember_runtime.c: the C runtime for models exported by ember (see ember_runtime.h).
 *
 * Loading checks the file before dlopen (the integrity trailer's length and CRC-32, the
 * ELF header and segments inside the file), then finds the native entry point
 * (EMBER_AOT_ENTRY_SYMBOL) and allocates the workspace and the input/output buffers the
 * entry describes, 64-byte aligned.  Inputs are copied in, so callers' buffers need no
 * particular alignment.
 */
#define _GNU_SOURCE
#include "ember_runtime.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct EmberModel {
  void* handle;
  const EmberAotEntry* entry;
  void* workspace;
  DLTensor* inputs;
  DLTensor* outputs;
  DLTensor** input_ptrs;
  DLTensor** output_ptrs;
  char* input_set;
};

static __thread char last_error[1024];

static void set_error(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof(last_error), fmt, args);
  va_end(args);
}

const char* ember_last_error(void) { return last_error; }

/* -- file checks -------------------------------------------------------------------------- */
static uint32_t crc_table[256];

static void crc_init(void) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}

static int check_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    set_error("ember_model_load: cannot open '%s'", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char trailer[24];
  uint64_t payload = (uint64_t)size;
  if (size >= 24) {
    fseek(f, size - 24, SEEK_SET);
    if (fread(trailer, 1, 24, f) == 24 && memcmp(trailer, "EMBERSUM", 8) == 0) {
      uint64_t length;
      uint32_t crc_expected;
      memcpy(&length, trailer + 8, 8);
      memcpy(&crc_expected, trailer + 16, 4);
      if (length != (uint64_t)size - 24) {
        fclose(f);
        set_error("ember_model_load: '%s' is truncated or was modified after export", path);
        return -1;
      }
      crc_init();
      uint32_t crc = 0xFFFFFFFFu;
      unsigned char buf[1 << 16];
      uint64_t left = length;
      fseek(f, 0, SEEK_SET);
      while (left) {
        size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);
        size_t got = fread(buf, 1, want, f);
        if (got == 0) break;
        for (size_t i = 0; i < got; i++) crc = crc_table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
        left -= got;
      }
      if ((crc ^ 0xFFFFFFFFu) != crc_expected) {
        fclose(f);
        set_error("ember_model_load: '%s' was modified after export (checksum mismatch)", path);
        return -1;
      }
      payload = length;
    }
  }
  unsigned char head[64];
  fseek(f, 0, SEEK_SET);
  if (fread(head, 1, 64, f) != 64 || memcmp(head, "\x7f" "ELF", 4) != 0 || head[4] != 2) {
    fclose(f);
    set_error("ember_model_load: '%s' is not a 64-bit shared library written by ember", path);
    return -1;
  }
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  memcpy(&phoff, head + 0x20, 8);
  memcpy(&shoff, head + 0x28, 8);
  memcpy(&phentsize, head + 0x36, 2);
  memcpy(&phnum, head + 0x38, 2);
  memcpy(&shentsize, head + 0x3A, 2);
  memcpy(&shnum, head + 0x3C, 2);
  int bad = phentsize < 56 || phoff + (uint64_t)phentsize * phnum > payload ||
            shoff + (uint64_t)shentsize * shnum > payload;
  for (uint16_t i = 0; !bad && i < phnum; i++) {
    uint64_t seg[4];
    fseek(f, (long)(phoff + (uint64_t)i * phentsize + 8), SEEK_SET);
    if (fread(seg, 8, 4, f) != 4 || seg[0] + seg[3] > payload) bad = 1;
  }
  fclose(f);
  if (bad) {
    set_error("ember_model_load: '%s' is truncated or corrupt (ELF tables or segments lie past the end)", path);
    return -1;
  }
  return 0;
}

/* -- tensors ------------------------------------------------------------------------------ */
static uint64_t num_bytes(int32_t ndim, const int64_t* shape, DLDataType dtype) {
  uint64_t count = 1;
  for (int32_t i = 0; i < ndim; i++) count *= (uint64_t)shape[i];
  return count * ((dtype.bits * dtype.lanes + 7) / 8);
}

static void* aligned(uint64_t nbytes) {
  void* p = NULL;
  if (posix_memalign(&p, 64, nbytes ? (size_t)((nbytes + 63) / 64 * 64) : 64) != 0) return NULL;
  return p;
}

static int init_tensors(const EmberTensorInfo* infos, int32_t n, DLTensor** out, DLTensor*** ptrs) {
  *out = (DLTensor*)calloc(n ? n : 1, sizeof(DLTensor));
  *ptrs = (DLTensor**)calloc(n ? n : 1, sizeof(DLTensor*));
  if (!*out || !*ptrs) return -1;
  for (int32_t i = 0; i < n; i++) {
    DLTensor* t = &(*out)[i];
    t->data = aligned(num_bytes(infos[i].ndim, infos[i].shape, infos[i].dtype));
    if (!t->data) return -1;
    t->device.device_type = kDLCPU;
    t->ndim = infos[i].ndim;
    t->dtype = infos[i].dtype;
    t->shape = (int64_t*)infos[i].shape;
    (*ptrs)[i] = t;
  }
  return 0;
}

static void free_tensors(DLTensor* tensors, int32_t n) {
  if (!tensors) return;
  for (int32_t i = 0; i < n; i++) free(tensors[i].data);
  free(tensors);
}

void ember_model_free(EmberModel* m) {
  if (!m) return;
  if (m->entry) {
    free_tensors(m->inputs, m->entry->num_inputs);
    free_tensors(m->outputs, m->entry->num_outputs);
  }
  free(m->input_ptrs);
  free(m->output_ptrs);
  free(m->input_set);
  free(m->workspace);
  if (m->handle) dlclose(m->handle);
  free(m);
}

EmberModel* ember_model_load(const char* path) {
  if (!path) {
    set_error("ember_model_load: path is NULL");
    return NULL;
  }
  if (check_file(path) != 0) return NULL;
  EmberModel* m = (EmberModel*)calloc(1, sizeof(EmberModel));
  if (!m) {
    set_error("ember_model_load: out of memory");
    return NULL;
  }
  /* RTLD_NODELETE: the model's OpenMP runtime (libgomp) may still have worker threads
   * spinning after a run; unmapping it under them on dlclose would crash the process. */
  m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!m->handle) {
    set_error("ember_model_load: dlopen('%s') failed: %s", path, dlerror());
    ember_model_free(m);
    return NULL;
  }
  m->entry = (const EmberAotEntry*)dlsym(m->handle, EMBER_AOT_ENTRY_SYMBOL);
  if (!m->entry) {
    set_error("ember_model_load: '%s' has no native entry point (%s); it was exported without one "
              "(only static-shape models get one: see the export log), load it from Python instead", path,
              EMBER_AOT_ENTRY_SYMBOL);
    ember_model_free(m);
    return NULL;
  }
  if (m->entry->abi_version != EMBER_AOT_ABI_VERSION) {
    set_error("ember_model_load: '%s' has entry ABI version %d, this runtime reads version %d", path,
              m->entry->abi_version, EMBER_AOT_ABI_VERSION);
    m->entry = NULL;
    ember_model_free(m);
    return NULL;
  }
  const EmberAotEntry* e = m->entry;
  m->workspace = aligned(e->workspace_bytes);
  m->input_set = (char*)calloc(e->num_inputs ? e->num_inputs : 1, 1);
  if (!m->workspace || !m->input_set || init_tensors(e->inputs, e->num_inputs, &m->inputs, &m->input_ptrs) ||
      init_tensors(e->outputs, e->num_outputs, &m->outputs, &m->output_ptrs)) {
    set_error("ember_model_load: out of memory (workspace of %llu bytes)", (unsigned long long)e->workspace_bytes);
    ember_model_free(m);
    return NULL;
  }
  return m;
}

int ember_model_num_inputs(const EmberModel* m) { return m ? m->entry->num_inputs : -1; }
int ember_model_num_outputs(const EmberModel* m) { return m ? m->entry->num_outputs : -1; }

const EmberTensorInfo* ember_model_input_info(const EmberModel* m, int i) {
  if (!m || i < 0 || i >= m->entry->num_inputs) {
    set_error("ember_model_input_info: index %d out of range", i);
    return NULL;
  }
  return &m->entry->inputs[i];
}

const EmberTensorInfo* ember_model_output_info(const EmberModel* m, int i) {
  if (!m || i < 0 || i >= m->entry->num_outputs) {
    set_error("ember_model_output_info: index %d out of range", i);
    return NULL;
  }
  return &m->entry->outputs[i];
}

int ember_model_input_index(const EmberModel* m, const char* name) {
  for (int32_t i = 0; m && name && i < m->entry->num_inputs; i++)
    if (strcmp(m->entry->inputs[i].name, name) == 0) return i;
  return -1;
}

static int same_type(const DLTensor* t, const EmberTensorInfo* info, const char* what, const char* fn) {
  if (t->device.device_type != kDLCPU) {
    set_error("%s: %s '%s': expected a CPU tensor, got device type %d", fn, what, info->name, t->device.device_type);
    return 0;
  }
  if (t->dtype.code != info->dtype.code || t->dtype.bits != info->dtype.bits || t->dtype.lanes != info->dtype.lanes) {
    set_error("%s: %s '%s': expected dtype (code %d, bits %d), got (code %d, bits %d)", fn, what, info->name,
              info->dtype.code, info->dtype.bits, t->dtype.code, t->dtype.bits);
    return 0;
  }
  if (t->ndim != info->ndim) {
    set_error("%s: %s '%s': expected %d dimensions, got %d", fn, what, info->name, info->ndim, t->ndim);
    return 0;
  }
  for (int32_t d = 0; d < t->ndim; d++) {
    if (t->shape[d] != info->shape[d]) {
      set_error("%s: %s '%s': expected shape[%d] == %lld, got %lld", fn, what, info->name, d,
                (long long)info->shape[d], (long long)t->shape[d]);
      return 0;
    }
  }
  if (t->strides) {
    int64_t expect = 1;
    for (int32_t d = t->ndim - 1; d >= 0; d--) {
      if (t->shape[d] != 1 && t->strides[d] != expect) {
        set_error("%s: %s '%s': expected a compact row-major tensor (strides)", fn, what, info->name);
        return 0;
      }
      expect *= t->shape[d];
    }
  }
  return 1;
}

int ember_model_set_input(EmberModel* m, int i, const DLTensor* value) {
  if (!m || !value) {
    set_error("ember_model_set_input: model and value must not be NULL");
    return -1;
  }
  if (i < 0 || i >= m->entry->num_inputs) {
    set_error("ember_model_set_input: index %d out of range (the model has %d inputs)", i, m->entry->num_inputs);
    return -1;
  }
  const EmberTensorInfo* info = &m->entry->inputs[i];
  if (!same_type(value, info, "input", "ember_model_set_input")) return -1;
  memcpy(m->inputs[i].data, (const char*)value->data + value->byte_offset,
         (size_t)num_bytes(info->ndim, info->shape, info->dtype));
  m->input_set[i] = 1;
  return 0;
}

int ember_model_set_input_by_name(EmberModel* m, const char* name, const DLTensor* value) {
  int i = ember_model_input_index(m, name);
  if (i < 0) {
    set_error("ember_model_set_input_by_name: the model has no input named '%s'", name ? name : "(null)");
    return -1;
  }
  return ember_model_set_input(m, i, value);
}

int ember_model_run(EmberModel* m) {
  if (!m) {
    set_error("ember_model_run: model is NULL");
    return -1;
  }
  for (int32_t i = 0; i < m->entry->num_inputs; i++) {
    if (!m->input_set[i]) {
      set_error("ember_model_run: input '%s' (#%d) was not set", m->entry->inputs[i].name, i);
      return -1;
    }
  }
  int32_t check = 0;
  int32_t rc = m->entry->run(m->workspace, m->input_ptrs, m->output_ptrs, &check);
  if (rc != 0) {
    const char* step = rc - 1 < m->entry->num_steps ? m->entry->step_names[rc - 1] : "?";
    set_error("ember_model_run: step %d (kernel '%s') rejected its arguments (check %d)", rc - 1, step, check);
    return -1;
  }
  return 0;
}

const DLTensor* ember_model_get_output(const EmberModel* m, int i) {
  if (!m || i < 0 || i >= m->entry->num_outputs) {
    set_error("ember_model_get_output: index %d out of range", i);
    return NULL;
  }
  return &m->outputs[i];
}

int ember_model_copy_output(const EmberModel* m, int i, DLTensor* dst) {
  const DLTensor* src = ember_model_get_output(m, i);
  if (!src || !dst) return -1;
  if (!same_type(dst, &m->entry->outputs[i], "output", "ember_model_copy_output")) return -1;
  memcpy((char*)dst->data + dst->byte_offset, src->data, (size_t)num_bytes(src->ndim, src->shape, src->dtype));
  return 0;
}
