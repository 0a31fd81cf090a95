// Times N uncontended pthread_mutex_lock calls (each followed by an unlock, which is not
// interposed) and prints ns per pair: run plain and under libaiprof_osrt.so, the difference
// is what the wrapper adds to a call that does not block.
#include <pthread.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  long calls = argc > 1 ? std::atol(argv[1]) : 20000000;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  timespec begin, end;
  clock_gettime(CLOCK_MONOTONIC, &begin);
  for (long i = 0; i < calls; ++i) {
    pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  double ns = static_cast<double>(end.tv_sec - begin.tv_sec) * 1e9 +
              static_cast<double>(end.tv_nsec - begin.tv_nsec);
  std::printf("%.2f\n", ns / static_cast<double>(calls));
  return 0;
}
