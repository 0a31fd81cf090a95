/* The mstx API from C (checks that mstx.h and aiprof.h stay C-compatible). */
#include <stdio.h>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

int main(void) {
  mstxDomainHandle_t domain = mstxDomainCreateA("c sample");
  mstxEventAttributes attributes = {0};
  attributes.fields = MSTX_ATTR_PAYLOAD;
  attributes.payload_type = MSTX_PAYLOAD_INT64;
  for (int step = 0; step < 10; ++step) {
    aiprofStepBegin((uint64_t)step);
    attributes.payload.i64 = step;
    mstxRangePushExA("c step", &attributes, NULL);
    mstxDomainMarkA(domain, "c mark", NULL);
    mstxRangePop();
    aiprofStepEnd((uint64_t)step);
  }
  printf("mstx_c_sample: 10 steps\n");
  return 0;
}
