// Command cluster is pond-go's monitoring example scaled out on Kafka.
package main

func main() {}
