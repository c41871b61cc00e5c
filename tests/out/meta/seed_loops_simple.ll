; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<float>" = type opaque

@Results = external constant %"class.RWStructuredBuffer<float>"

declare void @MyLoopBody()

declare void @MyLoopEntry()

declare void @MyOtherNode()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !21, !25}
!wgc.spirv.entryPoints = !{!27, !28, !29}
!wgc.experimental.tags = !{!30, !31}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<float>"* @Results, !"Results", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @MyLoopBody, !"MyLoopBody", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 21, !14, i32 4, !19, i32 5, !20}
!10 = !{!"MyLoopBody", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 33, i32 2, !13}
!13 = !{i32 0, i32 12, i32 2, i32 4}
!14 = !{!15, !17}
!15 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !16}
!16 = !{!"MyLoopEntry", i32 0}
!17 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !18}
!18 = !{!"MyOtherNode", i32 0}
!19 = !{i32 1, i32 1, i32 1}
!20 = !{i32 0}
!21 = !{void ()* @MyLoopEntry, !"MyLoopEntry", null, null, !22}
!22 = !{i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !16, i32 16, i32 -1, i32 20, !11, i32 21, !23, i32 4, !19, i32 131072, i32 16, i32 131073, i32 1, i32 5, !20}
!23 = !{!24}
!24 = !{i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !10}
!25 = !{void ()* @MyOtherNode, !"MyOtherNode", null, null, !26}
!26 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !18, i32 16, i32 -1, i32 20, !11, i32 4, !19, i32 5, !20}
!27 = !{void ()* @MyLoopBody, !"MyLoopBody"}
!28 = !{void ()* @MyLoopEntry, !"MyLoopEntry"}
!29 = !{void ()* @MyOtherNode, !"MyOtherNode"}
!30 = !{!"NodeMaxLoopIterations", i32 131072}
!31 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
