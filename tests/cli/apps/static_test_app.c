/* A statically linked program: LD_PRELOAD never reaches it, so aiprof cannot profile it and
 * must say why (launch_faults_test). */
int main(void) {
  return 0;
}
